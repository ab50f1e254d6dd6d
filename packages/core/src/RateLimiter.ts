/**
 * The rate limiter service: per account (all its keys together) a token bucket per minute and a
 * daily quota, per key the ban policy, and per client address a bucket for failed authentication.
 * The in-memory adapter decides in one synchronous step over its state, so each decision is atomic
 * within the process; a shared adapter (Redis) decides in one atomic step on the server.
 *
 * @since 1.0.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AddressLimit from "./AddressLimit.js"
import * as BanPolicy from "./BanPolicy.js"
import * as DailyQuota from "./DailyQuota.js"
import type { StoreUnavailable } from "./Errors.js"
import * as LimitDecision from "./LimitDecision.js"
import type { PlanLimits } from "./Plan.js"

/** The rate limiter's options: the ban policy and the limit on failed authentication. */
export interface RateLimiterOptions {
  readonly ban: BanPolicy.BanPolicyOptions
  /** Failed authentications admitted per client address per minute before 429 replaces 401. */
  readonly failedAuthPerMinute: number
  /** Client addresses whose failed authentications are kept at most (default 100,000; see `makeMemory`). */
  readonly failedAuthAddressesKept?: number | undefined
}

/** The rate limiter's defaults. */
export const DEFAULT_OPTIONS: RateLimiterOptions = { ban: BanPolicy.DEFAULT_OPTIONS, failedAuthPerMinute: 100 }

/** Who a request is charged to. */
export interface Subject {
  readonly accountId: string
  readonly keyId: string
  readonly limits: PlanLimits
}

/** The state worth keeping across restarts: daily counts per account and key standings with bans. */
export interface DurableLimiterState {
  readonly quotas: ReadonlyArray<readonly [accountId: string, quota: DailyQuota.DailyQuotaState]>
  readonly standings: ReadonlyArray<readonly [keyId: string, standing: BanPolicy.KeyStanding]>
}

/** The rate limiter: decides each request of a key (token bucket, daily quota, bans) and limits failed authentication per address. @category services */
export class RateLimiter extends Context.Service<
  RateLimiter,
  {
    /**
     * Decides (and, when allowed, consumes) one request of an authenticated key, at the time of the
     * Clock the limiter was built with. An adapter that decides in this process builds its answer
     * in one synchronous step (`Effect.sync`); one that must ask a server (Redis) answers later,
     * and may decide at that server's clock instead. Fails only when the limiter's state cannot be
     * reached and the adapter is set to refuse rather than guess (HTTP 503).
     */
    readonly admit: (subject: Subject) => Effect.Effect<LimitDecision.Decision, StoreUnavailable>
    /** Decides (and consumes) one failed authentication from a client address, like `admit`. */
    readonly admitFailedAuth: (address: string) => Effect.Effect<LimitDecision.Decision, StoreUnavailable>
    /**
     * Daily counts and standings changed since the last call, for write-behind persistence
     * (`LimiterPersistence`); empty for an adapter whose state is already shared and durable.
     */
    readonly takeChanges: Effect.Effect<DurableLimiterState>
    /** Loads persisted daily counts and standings (at start-up, before traffic). */
    readonly restore: (state: DurableLimiterState) => Effect.Effect<void>
  }
>()("@petstore/core/RateLimiter") {
  /** The limiter in this process's memory, at the time of the layer's Clock. */
  static readonly layerMemory = (options: Partial<RateLimiterOptions> = {}) =>
    Layer.effect(RateLimiter, Effect.map(Clock.Clock, (clock) => makeMemory({ ...DEFAULT_OPTIONS, ...options }, clock)))
}

const SWEEP_INTERVAL_MS = 60_000

/**
 * An account's usage as kept between decisions: the bucket and the daily quota, flattened, and
 * whether its daily count changed since the write-behind last took the changes.
 */
interface UsageRecord {
  units: number
  at: number
  day: number
  used: number
  changed: boolean
}

const view = (r: UsageRecord): LimitDecision.AccountUsage => ({
  bucket: { units: r.units, at: r.at },
  quota: { day: r.day, used: r.used }
})

const toRecord = (u: LimitDecision.AccountUsage): UsageRecord => ({
  units: u.bucket.units,
  at: u.bucket.at,
  day: u.quota.day,
  used: u.quota.used,
  changed: false
})

const store = (r: UsageRecord, u: LimitDecision.AccountUsage): void => {
  r.units = u.bucket.units
  r.at = u.bucket.at
  r.day = u.quota.day
  r.used = u.quota.used
}

/**
 * The limiter in memory, deciding at `clock`'s time (the live clock when not given).
 *
 * @category constructors
 */
export const makeMemory = (options: RateLimiterOptions, clock: Clock.Clock = Clock.Clock.defaultValue()): RateLimiter["Service"] => {
  // One flat, mutable record per active account (the pure decision works on immutable views of it):
  // four numbers and a map entry (what that costs per account is in docs/performance.md).
  const usage = new Map<string, UsageRecord>()
  const standings = new Map<string, BanPolicy.KeyStanding>()
  const addresses = AddressLimit.make(options.failedAuthPerMinute, options.failedAuthAddressesKept ?? 100_000)
  // Daily counts loaded at start-up, applied at each account's first request (its limits are known then).
  const restoredQuotas = new Map<string, DailyQuota.DailyQuotaState>()
  // Accounts whose record is marked `changed`, each once: a flag on the record instead of a set
  // lookup on every decision.
  let changedAccounts: Array<string> = []
  const dirtyStandings = new Set<string>()
  let lastSweep = 0

  // Forget what equals the default: full buckets, and standings with nothing left to remember.
  const sweep = (now: number) => {
    if (now - lastSweep < SWEEP_INTERVAL_MS) return
    lastSweep = now
    addresses.forgetFull(now)
    for (const [keyId, s] of standings) {
      if (s.bannedUntil <= now && s.waitUntil <= now && now - s.bannedUntil >= options.ban.memoryMillis && !dirtyStandings.has(keyId)) {
        standings.delete(keyId)
      }
    }
  }

  const firstUsage = (accountId: string, limits: PlanLimits, now: number): LimitDecision.AccountUsage => {
    const fresh = LimitDecision.freshUsage(limits, now)
    const quota = restoredQuotas.get(accountId)
    if (quota === undefined) return fresh
    restoredQuotas.delete(accountId)
    return { bucket: fresh.bucket, quota }
  }

  const decideAccount = ({ accountId, keyId, limits }: Subject, now: number): LimitDecision.Decision => {
    let record = usage.get(accountId)
    const before = record === undefined ? firstUsage(accountId, limits, now) : view(record)
    const standing = standings.get(keyId) ?? BanPolicy.CLEAN
    const next = LimitDecision.decide(limits, before, standing, now, 1, options.ban)
    if (record === undefined) usage.set(accountId, record = toRecord(next.usage))
    else store(record, next.usage)
    if (next.usage.quota !== before.quota && !record.changed) {
      record.changed = true
      changedAccounts.push(accountId)
    }
    if (next.standing !== standing) {
      standings.set(keyId, next.standing)
      if (next.standing.bannedUntil !== standing.bannedUntil) dirtyStandings.add(keyId)
    }
    sweep(now)
    return next.decision
  }
  const decideAddress = (address: string, now: number): LimitDecision.Decision => {
    const decision = addresses.decide(address, now)
    sweep(now)
    return decision
  }

  return RateLimiter.of({
    // One synchronous step each (`Effect.sync`): answerable at once.
    admit: (subject) => Effect.sync(() => decideAccount(subject, clock.currentTimeMillisUnsafe())),
    admitFailedAuth: (address) => Effect.sync(() => decideAddress(address, clock.currentTimeMillisUnsafe())),
    takeChanges: Effect.sync(() => {
      const quotas = changedAccounts.map((id) => {
        const r = usage.get(id)!
        r.changed = false
        return [id, { day: r.day, used: r.used }] as const
      })
      const changed = [...dirtyStandings].map((id) => [id, standings.get(id) ?? BanPolicy.CLEAN] as const)
      changedAccounts = []
      dirtyStandings.clear()
      return { quotas, standings: changed }
    }),
    restore: (state) =>
      Effect.sync(() => {
        for (const [accountId, quota] of state.quotas) {
          const current = usage.get(accountId)
          if (current === undefined) restoredQuotas.set(accountId, quota)
          else store(current, { bucket: { units: current.units, at: current.at }, quota })
        }
        for (const [keyId, standing] of state.standings) standings.set(keyId, standing)
      })
  })
}
