/**
 * A fuzz run: connections generated from the run's seed, run `connections` at a time until the
 * requested number of requests went out, every answer judged by the oracle; then the first
 * failure of each kind shrunk to the shortest connection that still fails that way.
 *
 * @since 1.0.0
 */
import * as Due from "./Due.js"
import * as Generator from "./Generator.js"
import * as Oracle from "./Oracle.js"
import * as RawClient from "./RawClient.js"
import type { ConnectionScript } from "./RawRequest.js"
import type { FuzzTarget } from "./Requests.js"
import * as Shrink from "./Shrink.js"

/** Where the server is, and how many requests to send. @category models */
export interface FuzzOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string
  /** Creates an account of the fuzzer's own (enterprise, high limits) through `/admin/v1`. */
  readonly adminToken?: string | undefined
  /** A key to use instead (its account's limits then apply: expect 429s). */
  readonly key?: string | undefined
  /** Requests to send (default 2,000); the last connection may carry a few more. */
  readonly requests?: number | undefined
  /** The run's seed (default: random; printed, so a run can be replayed). */
  readonly seed?: number | undefined
  /** Connections at a time (default 8). */
  readonly connections?: number | undefined
  /** Only this connection of the run (its index in the report), to replay one failure. */
  readonly only?: number | undefined
  /** Longest wait without progress while an answer or a close is owed (default 10 s). */
  readonly deadlineMs?: number | undefined
  /** The public API's prefix (default `/v1`). */
  readonly prefix?: string | undefined
  /** Time for shrinking, per failure kind (default 30 s; 0: no shrinking). */
  readonly shrinkTimeMs?: number | undefined
  readonly log?: ((line: string) => void) | undefined
  /** Told after each connection: the requests sent of those asked for, and the failures so far. */
  readonly progress?: ((state: { readonly requests: number; readonly of: number; readonly failures: number }) => void) | undefined
}

/** The first failure of a kind, and the shortest connection found that fails the same way. @category models */
export interface FailureExample {
  readonly kind: Oracle.FailureKind
  readonly connection: number
  readonly connectionSeed: number
  readonly failure: Oracle.Failure
  readonly script: ConnectionScript
  readonly shrunk: Shrink.Shrunk | undefined
}

/** What a fuzzer run sent and found. @category models */
export interface FuzzReport {
  readonly ok: boolean
  readonly seed: number
  readonly baseUrl: string
  /** The key the run used (shown as `$KEY` in examples). */
  readonly key: string
  readonly connections: number
  readonly concurrency: number
  /** Requests generated for the connections run, and those whose bytes all went out. */
  readonly requests: number
  readonly written: number
  /** Answers the requests were owed, and those of them that came. */
  readonly owed: number
  readonly answered: number
  readonly interim: number
  readonly durationMs: number
  /** Answers by status, with the Error code where there is one (`"400 invalid_json"`). */
  readonly statuses: Readonly<Record<string, number>>
  /** Requests by input class. */
  readonly inputs: Readonly<Record<string, number>>
  /** Connections by how they ended. */
  readonly ends: Readonly<Record<string, number>>
  readonly failures: Readonly<Partial<Record<Oracle.FailureKind, number>>>
  readonly examples: ReadonlyArray<FailureExample>
  /**
   * When the server stopped accepting connections (it crashed?), the run stopped: these are the
   * connections in flight then or cut by the server within the second before, the likely cause.
   */
  readonly lostServer: { readonly afterMs: number; readonly suspects: ReadonlyArray<number> } | undefined
}

const count = (record: Record<string, number>, key: string, n = 1) => {
  record[key] = (record[key] ?? 0) + n
}

const statusLabel = (answer: { readonly status: number; readonly body: Buffer }): string => {
  if (answer.status < 400) return String(answer.status)
  try {
    const code = (JSON.parse(answer.body.toString("utf8")) as { code?: unknown }).code
    return typeof code === "string" ? `${answer.status} ${code}` : String(answer.status)
  } catch {
    return String(answer.status)
  }
}

/** A key for the run: the one given, or a new enterprise account's through the admin API. */
const obtainKey = async (options: FuzzOptions): Promise<string> => {
  if (options.key !== undefined && options.key !== "") return options.key
  if (options.adminToken === undefined || options.adminToken === "") throw new Error("give an admin token or a key")
  const response = await fetch(new URL("/admin/v1/accounts", options.baseUrl), {
    method: "POST",
    headers: { Authorization: `Bearer ${options.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 1_000_000_000 } })
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`creating the fuzzer's account answered ${response.status}: ${text.slice(0, 200)}`)
  return (JSON.parse(text) as { key: string }).key
}

/** Runs the fuzzer against `options.baseUrl`. @category running */
export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const url = new URL(options.baseUrl)
  const key = await obtainKey(options)
  const seed = options.seed ?? (Math.random() * 2 ** 31) | 0
  const target: FuzzTarget = { host: url.host, key, prefix: options.prefix ?? "/v1" }
  const client: RawClient.ClientOptions = {
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 80),
    deadlineMs: options.deadlineMs ?? 10_000
  }
  const arbitrary = Generator.connection(target)
  const wanted = options.requests ?? 2_000
  const concurrency = options.only !== undefined ? 1 : Math.max(1, options.connections ?? 8)
  const log = options.log ?? (() => {})

  const statuses: Record<string, number> = {}
  const inputs: Record<string, number> = {}
  const ends: Record<string, number> = {}
  const failures: Record<string, number> = {}
  const firsts = new Map<Oracle.FailureKind, Omit<FailureExample, "shrunk">>()
  let next = options.only ?? 0
  let planned = 0
  let connections = 0
  let written = 0
  let owed = 0
  let answered = 0
  let interim = 0
  let lostServer: FuzzReport["lostServer"]
  const inFlight = new Set<number>()
  const recentlyEnded: Array<{ readonly index: number; readonly at: number; readonly cut: boolean }> = []
  const started = performance.now()

  /** Counts what the connection sent and got, and judges it. */
  const tally = (index: number, script: ConnectionScript, outcome: RawClient.Outcome) => {
    const due = Due.answersDue(script, outcome.answers)
    written += outcome.written
    owed += due
    answered += Math.min(due, outcome.answers.length)
    interim += outcome.interim
    count(ends, outcome.end)
    for (const answer of outcome.answers) count(statuses, statusLabel(answer))
    for (const failure of Oracle.judge(script, outcome)) {
      count(failures, failure.kind)
      if (!firsts.has(failure.kind)) {
        firsts.set(failure.kind, { kind: failure.kind, connection: index, connectionSeed: Generator.connectionSeed(seed, index), failure, script })
        log(`fuzz: ${failure.kind} on connection ${index}: ${failure.message}`)
      }
    }
  }

  const worker = async () => {
    while (lostServer === undefined && (options.only !== undefined ? connections === 0 : planned < wanted)) {
      const index = next++
      const script = Generator.script(arbitrary, seed, index)
      planned += script.requests.length
      connections++
      for (const r of script.requests) count(inputs, r.kind)
      inFlight.add(index)
      const outcome = await RawClient.run(script, client)
      inFlight.delete(index)
      const now = performance.now()
      if (outcome.end === "refused" && lostServer === undefined) {
        // A server that dies cuts its connections: those cut within the last second are suspects.
        const cut = recentlyEnded.filter((e) => e.cut && e.at > now - 1_000).map((e) => e.index)
        const suspects = [...new Set([...inFlight, ...cut])].sort((a, b) => a - b)
        lostServer = { afterMs: now - started, suspects }
        log(`fuzz: the server refused a connection after ${((now - started) / 1000).toFixed(1)} s; stopping (suspects: ${suspects.join(", ")})`)
      }
      recentlyEnded.push({ index, at: now, cut: outcome.end === "reset" || outcome.end === "closed" || outcome.end === "refused" })
      if (recentlyEnded.length > 256) recentlyEnded.splice(0, 128)
      tally(index, script, outcome)
      options.progress?.({ requests: planned, of: wanted, failures: Object.values(failures).reduce((a, b) => a + b, 0) })
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  const durationMs = performance.now() - started

  const shrinkTimeMs = options.shrinkTimeMs ?? 30_000
  const examples: Array<FailureExample> = []
  for (const first of firsts.values()) {
    if (shrinkTimeMs <= 0 || lostServer !== undefined) {
      examples.push({ ...first, shrunk: undefined })
      continue
    }
    log(`fuzz: shrinking the first ${first.kind} (connection ${first.connection}) ...`)
    examples.push({ ...first, shrunk: await Shrink.shrink(arbitrary, first.connectionSeed, first.kind, client, shrinkTimeMs) })
  }
  return {
    ok: firsts.size === 0,
    seed,
    baseUrl: options.baseUrl,
    key,
    connections,
    concurrency,
    requests: planned,
    written,
    owed,
    answered,
    interim,
    durationMs,
    statuses,
    inputs,
    ends,
    failures,
    examples,
    lostServer
  }
}
