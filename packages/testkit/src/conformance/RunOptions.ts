/**
 * What a conformance run is asked to do (`ConformanceOptions`, `--key` specs), and the settings a
 * run works from, the defaults filled in and the options that cannot go together refused.
 *
 * @since 1.0.0
 */
import { DEFAULT_EXPECTATIONS, type Expectations } from "./Expectations.js"
import { type HttpClient, makeClient } from "./HttpExchange.js"
import type { PlanLimits } from "./ModelRecords.js"
import { replayCommand } from "./Replay.js"
import type { GivenKey } from "./Session.js"
import type { ReceiverAddress } from "./WebhookReceiver.js"

/** Where the server is, and how long and hard to check it. @category models */
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

/** A run's settings: the options with their defaults, and the clients of its instances. */
export interface RunSettings {
  readonly options: ConformanceOptions
  readonly started: number
  readonly log: (line: string) => void
  readonly expect: Expectations
  readonly publicPrefix: string
  readonly seed: number
  readonly numRuns: number
  readonly timeLimitMs: number
  readonly minRuns: number
  readonly clients: ReadonlyArray<HttpClient>
  readonly withReceiver: boolean
  /** The command line that runs this run again, or one counterexample of it. */
  readonly replay: (counterexample?: Parameters<typeof replayCommand>[2]) => string
}

/** The settings of a run; throws on options that cannot make one. */
export const settingsOf = (options: ConformanceOptions): RunSettings => {
  const started = Date.now()
  const seed = options.seed ?? (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
  const numRuns = options.numRuns ?? 600
  const minRuns = options.minRuns ?? 0
  if (minRuns > numRuns) throw new Error(`the minimum of ${minRuns} sequences is more than the ${numRuns} to run`)
  const baseUrls = typeof options.baseUrl === "string" ? [options.baseUrl] : options.baseUrl
  if (baseUrls.length === 0) throw new Error("give at least one base URL")
  const clients = baseUrls.map((url) => makeClient(url))
  if (options.adminToken === undefined && (options.keys ?? []).length === 0) {
    throw new Error("give an admin token or at least one key")
  }
  const withReceiver = options.webhookReceiver !== undefined && options.webhookReceiver !== false
  if (withReceiver && options.adminToken === undefined) {
    throw new Error("the webhook receiver needs the admin token (the checker sets each account's endpoint through the admin API)")
  }
  return {
    options,
    started,
    log: options.log ?? (() => undefined),
    expect: { ...DEFAULT_EXPECTATIONS, ...options.expectations },
    publicPrefix: options.publicPrefix ?? "/v1",
    seed,
    numRuns,
    timeLimitMs: options.timeLimitMs ?? 90_000,
    minRuns,
    clients,
    withReceiver,
    replay: (counterexample) =>
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
  }
}
