/**
 * Write-behind of the rate limiter's durable state through a `LimiterStateStore`: the limiter keeps
 * deciding in memory, so a request does no I/O; every `flushMillis` (1 s) what changed is saved in
 * one write, and once more when the layer closes. At start the state is read back before traffic,
 * so a restart neither resets a daily quota nor lifts a ban. A crash (kill -9, power loss) loses at
 * most the last `flushMillis` of changes; the per-minute bucket is in memory only and starts full.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as BanPolicy from "./BanPolicy.js"
import * as DailyQuota from "./DailyQuota.js"
import type { StoreUnavailable } from "./Errors.js"
import { LimiterStateStore } from "./LimiterStateStore.js"
import { RateLimiter } from "./RateLimiter.js"

/** How often the limiter's durable state is written behind, and how much at once. */
export interface LimiterPersistenceOptions {
  /** The longest a change waits before it is written. */
  readonly flushMillis: number
  /** Standings whose last ban ended longer ago than this are forgotten at start (the ban memory). */
  readonly forgetAfterMillis: number
}

/** The defaults of the write-behind of the limiter's state. */
export const DEFAULT_OPTIONS: LimiterPersistenceOptions = {
  flushMillis: 1_000,
  forgetAfterMillis: BanPolicy.DEFAULT_OPTIONS.memoryMillis
}

/** Restores the limiter's durable state from its store, then writes its changes behind. @category constructors */
export const make = (
  options: LimiterPersistenceOptions
): Effect.Effect<void, StoreUnavailable, LimiterStateStore | RateLimiter | Scope.Scope> =>
  Effect.gen(function*() {
    const store = yield* LimiterStateStore
    const limiter = yield* RateLimiter

    const now = yield* Clock.currentTimeMillis
    yield* limiter.restore(yield* store.load(DailyQuota.dayOf(now), now, now - options.forgetAfterMillis))

    // Changes taken from the limiter but not yet saved; a failed write is retried at the next flush.
    const pendingQuotas = new Map<string, DailyQuota.DailyQuotaState>()
    const pendingStandings = new Map<string, BanPolicy.KeyStanding>()

    const flush = Effect.gen(function*() {
      const changes = yield* limiter.takeChanges
      for (const [id, quota] of changes.quotas) pendingQuotas.set(id, quota)
      for (const [id, standing] of changes.standings) pendingStandings.set(id, standing)
      if (pendingQuotas.size === 0 && pendingStandings.size === 0) return
      const quotas = [...pendingQuotas]
      const standings = [...pendingStandings]
      yield* store.save({ quotas, standings })
      // Keep what changed again while the write was in flight.
      for (const [id, q] of quotas) if (pendingQuotas.get(id) === q) pendingQuotas.delete(id)
      for (const [id, s] of standings) if (pendingStandings.get(id) === s) pendingStandings.delete(id)
    })

    const logged = flush.pipe(
      // An outage is the readiness watch's to say; only a defect is logged here, with its stack.
      Effect.catchCause((cause) =>
        Cause.hasFails(cause)
          ? Effect.logDebug("rate limiter state not saved yet (store unavailable); retrying")
          : Effect.logWarning("rate limiter state not saved yet; retrying", cause)
      )
    )
    // The flush interval is wall time, not the service's clock: a test clock jumping days ahead
    // must not replay thousands of flushes.
    const fiber = yield* Effect.sleep(Duration.millis(options.flushMillis)).pipe(
      Effect.andThen(logged),
      Effect.forever,
      Effect.provideService(Clock.Clock, Clock.Clock.defaultValue()),
      Effect.forkDetach
    )
    // Runs before the store closes (this layer depends on it): the last changes are kept.
    yield* Effect.addFinalizer(() => Effect.andThen(Fiber.interrupt(fiber), logged))
  })

/**
 * Restores the limiter's state at build and writes it behind while the layer lives.
 *
 * @category layers
 */
export const layer = (
  options: Partial<LimiterPersistenceOptions> = {}
): Layer.Layer<never, StoreUnavailable, LimiterStateStore | RateLimiter> =>
  Layer.effectDiscard(make({ ...DEFAULT_OPTIONS, ...options }))
