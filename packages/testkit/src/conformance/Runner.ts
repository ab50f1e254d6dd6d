/**
 * Runs the model-based conformance suite against a server at a base URL: fetches and checks the
 * OpenAPI document, then runs random command sequences (fast-check `commands` + `asyncModelRun`)
 * and, on a failure, shrinks it to the shortest sequence and prints it as curl commands.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import * as OwnUsageCheck from "./OwnUsageCheck.js"
import { checkUsage } from "./UsageCheck.js"

import { commandArbitraries } from "./Commands.js"
import { DEFAULT_EXPECTATIONS, type Expectations } from "./Expectations.js"
import { makeClient, now, toCurl } from "./HttpExchange.js"
import { Model } from "./Model.js"
import type { PlanLimits } from "./ModelRecords.js"
import { recordPreexisting, takeInventory } from "./Inventory.js"
import { ConcurrentKeyedCreates } from "./KeyedCreateCommands.js"
import * as DocumentRules from "./DocumentRules.js"
import * as OpenApiChecker from "./OpenApiChecker.js"
import { replayCommand, replayPathOf } from "./Replay.js"
import { type GivenKey, Session } from "./Session.js"
import { ConformanceViolation } from "./Violation.js"
import { checkDeliveries, type WebhookSummary } from "./WebhookCheck.js"
import { WebhookLedger } from "./WebhookLedger.js"
import { type ReceiverAddress, WebhookReceiver } from "./WebhookReceiver.js"

/** @category models */
export interface ConformanceOptions {
  /**
   * Where the server is, e.g. `http://127.0.0.1:8080` (the public API is under `publicPrefix`); several
   * instances of one deployment: requests go to each in turn, and what must hold across them is checked.
   */
  readonly baseUrl: string | ReadonlyArray<string>
  /** With an admin token, each sequence creates its own accounts and keys through `/admin/v1`. */
  readonly adminToken?: string | undefined
  /** Without one, keys to use, each of a different account, with the account's limits. */
  readonly keys?: ReadonlyArray<GivenKey> | undefined
  /** Command sequences to run (default 600). */
  readonly numRuns?: number | undefined
  /** Longest sequence (default 40 commands). */
  readonly maxCommands?: number | undefined
  readonly seed?: number | undefined
  /** With `seed`, fast-check's path to one counterexample: runs only that sequence (printed with a failure). */
  readonly path?: string | undefined
  /** With `path`, which commands of the sequence ran (printed with a failure), so shrinking replays exactly. */
  readonly replayPath?: string | undefined
  /** Stop starting new sequences, and stop shrinking, after this long (default 90 s). */
  readonly timeLimitMs?: number | undefined
  /**
   * A run stopped by the time limit before this many sequences fails (default 0: the time limit alone
   * never fails a run, though the report says it stopped early).
   */
  readonly minRuns?: number | undefined
  readonly publicPrefix?: string | undefined
  readonly messagesPrefix?: string | undefined
  readonly expectations?: Partial<Expectations> | undefined
  /** Progress lines (default: none). */
  readonly log?: ((line: string) => void) | undefined
  /** Told after each command sequence (shrinking's included): how many ran of how many asked, and the requests sent. */
  readonly progress?: ((state: { readonly sequences: number; readonly of: number; readonly requests: number }) => void) | undefined
  /** How long the usage check waits for the server to write its counts (default 15 s; its flush interval is 5 s by default). */
  readonly usageWaitMs?: number | undefined
  /**
   * Starts a webhook receiver on loopback (`true`: 127.0.0.1, a free port), sets it as the endpoint
   * of every account the run creates (needs the admin token; the server must allow private
   * addresses, `PETSTORE_WEBHOOK_ALLOW_PRIVATE=true`), and checks at the end that every accepted
   * message arrived there, signed, with its id as `webhook-id` and its payload (see `WebhookCheck`).
   */
  readonly webhookReceiver?: boolean | ReceiverAddress | undefined
  /** How long the webhook check waits for the last deliveries after the run (default 30 s). */
  readonly webhookWaitMs?: number | undefined
}

/** @category models */
export interface ConformanceFailure {
  readonly message: string
  /** The shrunk command sequence, as fast-check prints it. */
  readonly commands: string
  /** The requests of the shrunk sequence as a replayable shell script. */
  readonly curl: string
  readonly shrinks: number
  /** The command line that runs the shrunk sequence again (seed and path); secrets as shell variables. */
  readonly replay: string
}

/** @category models */
export interface ConformanceReport {
  readonly ok: boolean
  readonly runs: number
  readonly seed: number
  readonly durationMs: number
  readonly requests: number
  readonly warnings: ReadonlyArray<string>
  /** How often each answer was seen (`"201"`, `"429 key_banned"` ...): what the run exercised. */
  readonly answers: Readonly<Record<string, number>>
  /** Set when the time limit stopped the run before `numRuns` sequences, in words. */
  readonly stoppedEarly?: string | undefined
  /** With `webhookReceiver`, once the deliveries were checked: what arrived. */
  readonly webhooks?: WebhookSummary | undefined
  readonly failure?: ConformanceFailure | undefined
}

/** The limits of a named plan, for keys given without numbers. */
export const PLAN_LIMITS: Readonly<Record<string, PlanLimits>> = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 }
}

/**
 * Parses `KEY`, `KEY:free|pro|business` or `KEY:PER_MINUTE/PER_DAY` (the plan defaults to free).
 *
 * @category constructors
 */
export const parseKey = (spec: string): GivenKey => {
  const colon = spec.lastIndexOf(":")
  if (colon === -1) return { key: spec, limits: PLAN_LIMITS.free! }
  const key = spec.slice(0, colon)
  const limits = spec.slice(colon + 1)
  const named = PLAN_LIMITS[limits.toLowerCase()]
  if (named !== undefined) return { key, limits: named }
  const m = /^(\d+)\/(\d+)$/.exec(limits)
  if (m === null) throw new Error(`--key ${key.slice(0, 12)}…: limits must be free, pro, business or PER_MINUTE/PER_DAY`)
  return { key, limits: { perMinute: Number(m[1]), perDay: Number(m[2]) } }
}

/** Runs the suite; never throws for a non-conforming server (see `report.failure`). @category runners */
export const runConformance = async (options: ConformanceOptions): Promise<ConformanceReport> => {
  const started = Date.now()
  const log = options.log ?? (() => undefined)
  const expect: Expectations = { ...DEFAULT_EXPECTATIONS, ...options.expectations }
  const publicPrefix = options.publicPrefix ?? "/v1"
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
  const numRuns = options.numRuns ?? 600
  const timeLimitMs = options.timeLimitMs ?? 90_000
  const minRuns = options.minRuns ?? 0
  if (minRuns > numRuns) throw new Error(`the minimum of ${minRuns} sequences is more than the ${numRuns} to run`)
  const baseUrls = typeof options.baseUrl === "string" ? [options.baseUrl] : options.baseUrl
  if (baseUrls.length === 0) throw new Error("give at least one base URL")
  const clients = baseUrls.map((url) => makeClient(url))
  const client = clients[0]!
  if (options.adminToken === undefined && (options.keys ?? []).length === 0) {
    throw new Error("give an admin token or at least one key")
  }
  const withReceiver = options.webhookReceiver !== undefined && options.webhookReceiver !== false
  if (withReceiver && options.adminToken === undefined) {
    throw new Error("the webhook receiver needs the admin token (the checker sets each account's endpoint through the admin API)")
  }
  let receiver: WebhookReceiver | undefined
  const replay = (counterexample?: Parameters<typeof replayCommand>[2]) =>
    replayCommand({
      baseUrls,
      admin: options.adminToken !== undefined,
      webhookReceiver: withReceiver,
      keyLimits: (options.keys ?? []).map((k) => k.limits),
      maxCommands: options.maxCommands,
      publicPrefix: options.publicPrefix,
      messagesPrefix: options.messagesPrefix,
      expectations: options.expectations
    }, seed, counterexample)
  try {
    // The document, without a key.
    const docExchange = await client.send({ method: "GET", path: `${publicPrefix}/openapi.json`, headers: {} })
    if (docExchange.response.status !== 200) {
      return failed(`GET ${publicPrefix}/openapi.json → ${docExchange.response.status}: the document must be served without a key`)
    }
    let document: unknown
    try {
      document = JSON.parse(docExchange.response.text)
    } catch {
      return failed(`GET ${publicPrefix}/openapi.json: not JSON`)
    }
    for (const other of clients.slice(1)) {
      const x = await other.send(docExchange.request)
      if (x.response.status !== 200) return failed(`GET ${other.origin}${publicPrefix}/openapi.json → ${x.response.status}: every instance serves the document`)
    }
    let checker: OpenApiChecker.OpenApiChecker
    try {
      checker = OpenApiChecker.make(document)
    } catch (error) {
      return failed(`GET ${publicPrefix}/openapi.json: ${(error as Error).message}`, toCurl(client.origin, docExchange.request))
    }
    const messagesPrefix = options.messagesPrefix ?? publicPrefix
    const documentVerdict = DocumentRules.check(document, { publicPrefix, messagesPrefix }, (method, path) => {
      const route = checker.match(method, path)
      return route._tag === "UnknownRoute" ? undefined : route.template
    })
    if (documentVerdict.failures.length > 0) {
      return failed(
        `the document GET ${publicPrefix}/openapi.json departs from the interface:\n- ${documentVerdict.failures.join("\n- ")}`,
        toCurl(client.origin, docExchange.request)
      )
    }
    // The checker's own warning on the version is a failure above; the rest are matters of taste.
    const warnings = [...checker.warnings.filter((w) => !w.startsWith("openapi is ")), ...documentVerdict.warnings]

    const ledger = new WebhookLedger()
    if (withReceiver) {
      receiver = await WebhookReceiver.start(ledger.verify, options.webhookReceiver === true ? {} : options.webhookReceiver as ReceiverAddress)
      log(`webhook receiver at ${receiver.origin}`)
    }
    const model = new Model(expect, performance.now())
    const session = new Session({
      clients,
      checker,
      model,
      publicPrefix,
      messagesPrefix,
      adminToken: options.adminToken,
      givenKeys: options.keys ?? [],
      webhooks: receiver === undefined ? undefined : { receiver, ledger }
    })
    // Setting up the checker's own account (and its webhook endpoint) can meet a violation too.
    const prepared = await outsideSequences(session, async () => {
      await session.prepare()
      return undefined
    })
    if (typeof prepared === "object") return failed(prepared.message, prepared.curl)
    let requests = 0
    // Keys given by hand have a past: their usage before the run, read now, is subtracted at the end.
    let usageBaselines: OwnUsageCheck.Baselines | string | undefined
    if (options.adminToken === undefined) {
      usageBaselines = OwnUsageCheck.notInDocument(session)
      if (usageBaselines === undefined) {
        session.usage.note(model.accounts)
        session.startPhase()
        try {
          usageBaselines = await OwnUsageCheck.readBaselines(session.usage, OwnUsageCheck.readThrough(session), (k, at) => model.toldToWait(k, at), now)
        } catch (error) {
          if (!(error instanceof ConformanceViolation)) throw error
          return failed(error.message, session.curlScript())
        }
        requests += session.log.length
      }
    }
    const before = await outsideSequences(session, () => recordPreexisting(model, session))
    requests += session.log.length
    if (typeof before === "object") return failed(before.message, before.curl)
    if (before !== undefined) warnings.push(`the inventory is not taken: ${before}`)
    let lastFailure: { message: string; curl: string } | undefined
    const commands = fc.commands(commandArbitraries({ admin: options.adminToken !== undefined }), {
      maxCommands: options.maxCommands ?? 40,
      ...(options.replayPath === undefined ? {} : { replayPath: options.replayPath })
    })
    // The sequence being run: a time limit ends the check without waiting for it, so the inventory
    // waits for it to end first (until then the server may hold what the model does not know yet).
    let running: Promise<unknown> = Promise.resolve()
    let sequences = 0
    const property = fc.asyncProperty(commands, (cmds) => {
      const run = runSequence(cmds)
      running = run.catch(() => undefined)
      return run
    })
    const runSequence = async (cmds: Iterable<fc.AsyncCommand<Model, Session>>) => {
      try {
        await fc.asyncModelRun(async () => {
          await session.startSequence()
          return { model, real: session }
        }, cmds)
      } catch (error) {
        lastFailure = {
          message: error instanceof Error ? error.message : String(error),
          curl: session.curlScript()
        }
        throw error
      } finally {
        requests += session.log.length
        sequences++
        options.progress?.({ sequences, of: numRuns, requests })
      }
    }
    const details = await fc.check(property, {
      numRuns,
      seed,
      ...(options.path === undefined ? {} : { path: options.path }),
      interruptAfterTimeLimit: timeLimitMs,
      // An interrupted run is judged below against minRuns, and always said to have stopped early.
      markInterruptAsFailure: false
    })
    // fast-check marks a run interrupted before its first sequence as failed, with no counterexample.
    const stoppedEarly = details.interrupted && details.counterexample === null
      ? `stopped by the time limit (${timeLimitMs / 1000} s) after ${details.numRuns} of ${numRuns} sequences`
      : undefined
    let webhooks: WebhookSummary | undefined
    const report = (failure?: NonNullable<ConformanceReport["failure"]>): ConformanceReport => ({
      ok: failure === undefined,
      runs: details.numRuns,
      seed,
      durationMs: Date.now() - started,
      requests,
      warnings,
      answers: Object.fromEntries([...session.answers].sort(([a], [b]) => a.localeCompare(b))),
      ...(stoppedEarly === undefined ? {} : { stoppedEarly }),
      ...(webhooks === undefined ? {} : { webhooks }),
      ...(failure === undefined ? {} : { failure })
    })
    await running
    // With several instances: requests with one Idempotency-Key at once over all of them (a phase of
    // its own, not a command: bursts in every sequence would make shrinking other failures slow).
    if (!details.failed && clients.length > 1) {
      const keyed = await outsideSequences(session, async () => {
        for (const [index, count] of [2, 6, 10].entries()) {
          await new ConcurrentKeyedCreates({ index, anyKey: false }, { categoryId: index + 1 }, count).run(model, session)
        }
        return undefined
      })
      requests += session.log.length
      if (typeof keyed === "object") {
        return report({ message: keyed.message, commands: "(none: keyed creates at once over the instances, after every sequence)", curl: keyed.curl, shrinks: 0, replay: replay() })
      }
    }
    if ((!details.failed || stoppedEarly !== undefined) && before === undefined) {
      const after = await outsideSequences(session, () => takeInventory(model, session))
      requests += session.log.length
      if (typeof after === "object") {
        return report({ message: after.message, commands: "(none: the inventory after every sequence)", curl: after.curl, shrinks: 0, replay: replay() })
      }
      if (after !== undefined) warnings.push(`the inventory is not taken: ${after}`)
      const usageWaitMs = options.usageWaitMs ?? 15_000
      if (options.adminToken !== undefined) {
        const usage = await outsideSequences(session, async () => {
          session.usage.note(model.accounts)
          return checkUsage(session.usage, async (accountId, from, to) => {
            const x = await session.send("usage", {
              method: "GET",
              path: `/admin/v1/accounts/${encodeURIComponent(accountId)}/usage?from=${from}&to=${to}`,
              headers: { Authorization: `Bearer ${options.adminToken}` }
            })
            return { status: x.response.status, body: x.response.status === 200 ? JSON.parse(x.response.text) : x.response.text }
          }, { waitMs: usageWaitMs, maxAccounts: 20 })
        })
        requests += session.log.length
        if (typeof usage === "object") {
          return report({ message: usage.message, commands: "(none: the usage after every sequence)", curl: usage.curl, shrinks: 0, replay: replay() })
        }
        if (usage !== undefined) warnings.push(`usage is not checked: ${usage}`)
      }
      const own = typeof usageBaselines === "string" ? usageBaselines : await outsideSequences(session, async () => {
        session.usage.note(model.accounts)
        return OwnUsageCheck.notInDocument(session) ?? OwnUsageCheck.checkOwnUsage(
          session.usage,
          OwnUsageCheck.readThrough(session),
          { toldToWait: (k, at) => model.toldToWait(k, at), at: now },
          { waitMs: usageWaitMs, maxAccounts: 20, maxRefusalWaitMs: 3_000, baselines: usageBaselines }
        )
      })
      requests += session.log.length
      if (typeof own === "object") {
        return report({ message: own.message, commands: "(none: GET /v1/usage after every sequence)", curl: own.curl, shrinks: 0, replay: replay() })
      }
      if (own !== undefined) warnings.push(`usage is not checked through GET ${publicPrefix}/usage: ${own}`)
    }
    if ((!details.failed || stoppedEarly !== undefined) && receiver !== undefined) {
      const deliveries = await outsideSequences(session, async () => {
        webhooks = await checkDeliveries(session, ledger, receiver!, { waitMs: options.webhookWaitMs ?? 30_000 })
        return undefined
      })
      if (typeof deliveries === "object") {
        return report({ message: deliveries.message, commands: "(none: the webhook deliveries after every sequence)", curl: deliveries.curl, shrinks: 0, replay: replay() })
      }
    }
    if (stoppedEarly !== undefined && details.numRuns < Math.max(minRuns, 1)) {
      const message = `${stoppedEarly}, fewer than the minimum of ${Math.max(minRuns, 1)}: too few to trust a pass (raise the time limit or look at why the server is slow)`
      return report({ message, commands: "", curl: "", shrinks: 0, replay: replay() })
    }
    if (!details.failed || stoppedEarly !== undefined) {
      log(`${details.numRuns} sequences, ${requests} requests, ${((Date.now() - started) / 1000).toFixed(1)} s`)
      return report()
    }
    if (lastFailure === undefined) {
      return report({ message: String(details.errorInstance), commands: "", curl: "", shrinks: details.numShrinks, replay: replay() })
    }
    const counterexample = details.counterexample?.[0]
    const printed = counterexample === undefined ? "" : String(counterexample)
    return report({
      message: lastFailure.message,
      commands: printed,
      curl: lastFailure.curl,
      shrinks: details.numShrinks,
      replay: details.counterexamplePath === null
        ? replay()
        : replay({ path: details.counterexamplePath, replayPath: replayPathOf(printed) })
    })

    function failed(message: string, curl = ""): ConformanceReport {
      return {
        ok: false,
        runs: 0,
        seed,
        durationMs: Date.now() - started,
        requests: 0,
        warnings: [],
        answers: {},
        failure: { message, commands: "", curl, shrinks: 0, replay: replay() }
      }
    }
  } finally {
    for (const c of clients) c.close()
    await receiver?.close()
  }
}

/**
 * Runs checks outside any command sequence (the inventory) on a fresh log: a violation comes back
 * with its requests as curl commands; a reason it could not be taken as a string.
 */
const outsideSequences = async (
  session: Session,
  body: () => Promise<string | undefined>
): Promise<{ readonly message: string; readonly curl: string } | string | undefined> => {
  session.startPhase()
  try {
    return await body()
  } catch (error) {
    if (!(error instanceof ConformanceViolation)) throw error
    return { message: error.message, curl: session.curlScript() }
  }
}

/** A report in words, for people and CI logs. @category formatting */
export const formatReport = (report: ConformanceReport): string => {
  const lines: Array<string> = []
  for (const w of report.warnings) lines.push(`warning: ${w}`)
  if (report.ok) {
    const figures = `${report.runs} command sequences, ${report.requests} requests, seed ${report.seed}, ${(report.durationMs / 1000).toFixed(1)} s`
    // A run the time limit cut short says so first: what passed is less than what was asked.
    lines.push(
      report.stoppedEarly === undefined
        ? `conformance: passed (${figures})`
        : `conformance: passed, but STOPPED EARLY: ${report.stoppedEarly}; only what ran was checked (${figures})`
    )
    lines.push(`answers: ${Object.entries(report.answers).map(([k, n]) => `${k} ×${n}`).join(", ")}`)
    const w = report.webhooks
    if (w !== undefined) {
      lines.push(`webhooks: ${w.messages} accepted messages delivered to ${w.endpoints} endpoints, all verified (${w.deliveries} deliveries, ${w.duplicates} duplicates)`)
    }
    return lines.join("\n")
  }
  const f = report.failure!
  lines.push(`conformance: FAILED after ${report.runs} sequences (seed ${report.seed}, ${f.shrinks} shrinks)`)
  lines.push("", f.message)
  if (f.commands !== "") lines.push("", "Shortest failing command sequence:", `  ${f.commands}`)
  if (f.curl !== "") lines.push("", "The same requests as curl commands:", f.curl)
  lines.push("", "Replay it with:", `  ${f.replay}`)
  return lines.join("\n")
}

export { ConformanceViolation }
