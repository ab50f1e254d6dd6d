/**
 * Write-behind of the rate limiter's durable state: daily counts per account and key standings
 * (bans). The limiter keeps deciding in memory, so a request does no SQL; every `flushMillis`
 * (1 s) what changed is written in one transaction, and once more when the layer closes. At start
 * the state is read back before traffic, so a restart neither resets a daily quota nor lifts a ban.
 * A crash (kill -9, power loss) loses at most the last `flushMillis` of changes; the per-minute
 * bucket is in memory only and starts full.
 *
 * @since 1.0.0
 */
import { Clock, Duration, Effect, Fiber, Layer, type Scope } from "effect"
import { BanPolicy, DailyQuota, type Errors, RateLimiter } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"

export interface LimiterPersistenceOptions {
  /** The longest a change waits before it is written. */
  readonly flushMillis: number
  /** Standings whose last ban ended longer ago than this are forgotten at start (the ban memory). */
  readonly forgetAfterMillis: number
}

export const DEFAULT_OPTIONS: LimiterPersistenceOptions = {
  flushMillis: 1_000,
  forgetAfterMillis: BanPolicy.DEFAULT_OPTIONS.memoryMillis
}

interface QuotaRow {
  readonly account_id: string
  readonly day: number
  readonly used: number
}

interface StandingRow {
  readonly key_id: string
  readonly wait_until: number
  readonly strikes: number
  readonly banned_until: number
  readonly bans: number
  readonly last_ban_at: number
}

/** @category constructors */
export const make = (
  options: LimiterPersistenceOptions
): Effect.Effect<void, Errors.StoreUnavailable, Connection | Database | RateLimiter.RateLimiter | Scope.Scope> =>
  Effect.gen(function*() {
    const connection = yield* Connection
    const db = yield* Database
    const limiter = yield* RateLimiter.RateLimiter
    const dropOldQuotas = connection.prepare("DELETE FROM limiter_quotas WHERE day < ?")
    const dropOldStandings = connection.prepare(
      "DELETE FROM limiter_standings WHERE banned_until <= ? AND wait_until <= ?"
    )
    const allQuotas = connection.prepare("SELECT account_id, day, used FROM limiter_quotas")
    const allStandings = connection.prepare(
      "SELECT key_id, wait_until, strikes, banned_until, bans, last_ban_at FROM limiter_standings"
    )
    const saveQuota = connection.prepare(
      `INSERT INTO limiter_quotas (account_id, day, used) VALUES (?, ?, ?)
       ON CONFLICT (account_id) DO UPDATE SET day = excluded.day, used = excluded.used`
    )
    const saveStanding = connection.prepare(
      `INSERT INTO limiter_standings (key_id, wait_until, strikes, banned_until, bans, last_ban_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key_id) DO UPDATE SET wait_until = excluded.wait_until, strikes = excluded.strikes,
         banned_until = excluded.banned_until, bans = excluded.bans, last_ban_at = excluded.last_ban_at`
    )

    // Load what still matters today, dropping the rest.
    const now = yield* Clock.currentTimeMillis
    const today = DailyQuota.dayOf(now)
    yield* db.write(() => {
      dropOldQuotas.run(today)
      dropOldStandings.run(now - options.forgetAfterMillis, now)
    })
    const quotas = yield* db.read(() => allQuotas.all() as Array<QuotaRow>)
    const standings = yield* db.read(() => allStandings.all() as Array<StandingRow>)
    yield* limiter.restore({
      quotas: quotas.map((r) => [r.account_id, { day: r.day, used: r.used }] as const),
      standings: standings.map((r) =>
        [r.key_id, {
          waitUntil: r.wait_until,
          strikes: r.strikes,
          bannedUntil: r.banned_until,
          bans: r.bans,
          lastBanAt: r.last_ban_at
        }] as const
      )
    })

    // Changes taken from the limiter but not yet committed; a failed write is retried at the next flush.
    const pendingQuotas = new Map<string, DailyQuota.DailyQuotaState>()
    const pendingStandings = new Map<string, BanPolicy.KeyStanding>()

    const flush = Effect.gen(function*() {
      const changes = yield* limiter.takeChanges
      for (const [id, quota] of changes.quotas) pendingQuotas.set(id, quota)
      for (const [id, standing] of changes.standings) pendingStandings.set(id, standing)
      if (pendingQuotas.size === 0 && pendingStandings.size === 0) return
      const quotas = [...pendingQuotas]
      const standings = [...pendingStandings]
      yield* db.write(() => {
        for (const [id, q] of quotas) saveQuota.run(id, q.day, q.used)
        for (const [id, s] of standings) saveStanding.run(id, s.waitUntil, s.strikes, s.bannedUntil, s.bans, s.lastBanAt)
      })
      // Keep what changed again while the write was in flight.
      for (const [id, q] of quotas) if (pendingQuotas.get(id) === q) pendingQuotas.delete(id)
      for (const [id, s] of standings) if (pendingStandings.get(id) === s) pendingStandings.delete(id)
    })

    const logged = flush.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("rate limiter state not saved yet; retrying", cause))
    )
    // The flush interval is wall time, not the service's clock: a test clock jumping days ahead
    // must not replay thousands of flushes.
    const fiber = yield* Effect.sleep(Duration.millis(options.flushMillis)).pipe(
      Effect.zipRight(logged),
      Effect.forever,
      Effect.withClock(Clock.make()),
      Effect.forkDaemon
    )
    // Runs before the database closes (this layer depends on it): the last changes are kept.
    yield* Effect.addFinalizer(() => Effect.zipRight(Fiber.interrupt(fiber), logged))
  })

/**
 * Restores the limiter's state at build and writes it behind while the layer lives.
 *
 * @category layers
 */
export const layer = (
  options: Partial<LimiterPersistenceOptions> = {}
): Layer.Layer<never, Errors.StoreUnavailable, Connection | Database | RateLimiter.RateLimiter> =>
  Layer.scopedDiscard(make({ ...DEFAULT_OPTIONS, ...options }))
