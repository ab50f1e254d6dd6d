/**
 * The rate limiter service: per account (all its keys together) a token bucket per minute and a
 * daily quota, per key the ban policy, and per client address a bucket for failed authentication.
 * Each decision is one synchronous step over in-memory state, so it is atomic within the process.
 *
 * @since 1.0.0
 */
import { Clock, Context, Effect, Layer } from "effect"
import * as BanPolicy from "./BanPolicy.js"
import * as DailyQuota from "./DailyQuota.js"
import * as LimitDecision from "./LimitDecision.js"
import type { PlanLimits } from "./Plan.js"
import * as TokenBucket from "./TokenBucket.js"

export interface RateLimiterOptions {
  readonly ban: BanPolicy.BanPolicyOptions
  /** Failed authentications admitted per client address per minute before 429 replaces 401. */
  readonly failedAuthPerMinute: number
}

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

/** @category services */
export class RateLimiter extends Context.Tag("@petstore/core/RateLimiter")<
  RateLimiter,
  {
    /** Decides (and, when allowed, consumes) one request of an authenticated key. */
    readonly admit: (subject: Subject) => Effect.Effect<LimitDecision.Decision>
    /** Decides (and consumes) one failed authentication from a client address. */
    readonly admitFailedAuth: (address: string) => Effect.Effect<LimitDecision.Decision>
    /** Daily counts and standings changed since the last call, for write-behind persistence. */
    readonly takeChanges: Effect.Effect<DurableLimiterState>
    /** Loads persisted daily counts and standings (at start-up, before traffic). */
    readonly restore: (state: DurableLimiterState) => Effect.Effect<void>
  }
>() {
  static readonly layerMemory = (options: Partial<RateLimiterOptions> = {}) =>
    Layer.sync(RateLimiter, () => makeMemory({ ...DEFAULT_OPTIONS, ...options }))
}

const SWEEP_INTERVAL_MS = 60_000

/** @category constructors */
export const makeMemory = (options: RateLimiterOptions): RateLimiter["Type"] => {
  const usage = new Map<string, LimitDecision.AccountUsage>()
  const standings = new Map<string, BanPolicy.KeyStanding>()
  const addresses = new Map<string, TokenBucket.TokenBucketState>()
  // Daily counts loaded at start-up, applied at each account's first request (its limits are known then).
  const restoredQuotas = new Map<string, DailyQuota.DailyQuotaState>()
  const dirtyQuotas = new Set<string>()
  const dirtyStandings = new Set<string>()
  let lastSweep = 0

  // Forget what equals the default: full buckets, and standings with nothing left to remember.
  const sweep = (now: number) => {
    if (now - lastSweep < SWEEP_INTERVAL_MS) return
    lastSweep = now
    for (const [address, bucket] of addresses) {
      if (TokenBucket.refill(bucket, options.failedAuthPerMinute, now).units >= options.failedAuthPerMinute * TokenBucket.UNIT) {
        addresses.delete(address)
      }
    }
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

  return {
    admit: ({ accountId, keyId, limits }) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const before = usage.get(accountId) ?? firstUsage(accountId, limits, now)
        const standing = standings.get(keyId) ?? BanPolicy.CLEAN
        const next = LimitDecision.decide(limits, before, standing, now, 1, options.ban)
        usage.set(accountId, next.usage)
        if (next.usage.quota !== before.quota) dirtyQuotas.add(accountId)
        if (next.standing !== standing) {
          standings.set(keyId, next.standing)
          if (next.standing.bannedUntil !== standing.bannedUntil) dirtyStandings.add(keyId)
        }
        sweep(now)
        return next.decision
      }),
    admitFailedAuth: (address) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const before = addresses.get(address) ?? TokenBucket.full(options.failedAuthPerMinute, now)
        const next = LimitDecision.decideAddress(options.failedAuthPerMinute, before, now)
        addresses.set(address, next.bucket)
        sweep(now)
        return next.decision
      }),
    takeChanges: Effect.sync(() => {
      const quotas = [...dirtyQuotas].map((id) => [id, usage.get(id)!.quota] as const)
      const changed = [...dirtyStandings].map((id) => [id, standings.get(id) ?? BanPolicy.CLEAN] as const)
      dirtyQuotas.clear()
      dirtyStandings.clear()
      return { quotas, standings: changed }
    }),
    restore: (state) =>
      Effect.sync(() => {
        for (const [accountId, quota] of state.quotas) {
          const current = usage.get(accountId)
          if (current === undefined) restoredQuotas.set(accountId, quota)
          else usage.set(accountId, { bucket: current.bucket, quota })
        }
        for (const [keyId, standing] of state.standings) standings.set(keyId, standing)
      })
  }
}
