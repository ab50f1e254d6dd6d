/**
 * Where the rate limiter's durable state is kept between runs: daily counts per account and key
 * standings (bans). Store adapters (SQLite, PostgreSQL) implement it; `LimiterPersistence` writes
 * the limiter's changes behind through it and reads them back at start.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StoreUnavailable } from "./Errors.js"
import type { DurableLimiterState } from "./RateLimiter.js"

/** The port of the limiter's durable state (daily counts and bans), which a durable store implements. @category services */
export class LimiterStateStore extends Context.Service<
  LimiterStateStore,
  {
    /**
     * Forgets what no longer matters (daily counts of days before `today`, standings with no wait
     * or ban after `now` whose last ban ended before `forgetBefore`) and returns the rest.
     */
    readonly load: (today: number, now: number, forgetBefore: number) => Effect.Effect<DurableLimiterState, StoreUnavailable>
    /**
     * Keeps `changes` in one atomic write. A store shared by several instances keeps, per account and
     * day, the highest count any of them saved, so a restart never resets a used quota.
     */
    readonly save: (changes: DurableLimiterState) => Effect.Effect<void, StoreUnavailable>
  }
>()("@petstore/core/LimiterStateStore") {
  /** In process memory (tests): what was saved is loaded, as a durable store would. */
  static readonly layerMemory = Layer.sync(LimiterStateStore, () => makeMemory())
}

/** The limiter's durable state in process memory. @category constructors */
export const makeMemory = (): LimiterStateStore["Service"] => {
  const quotas = new Map<string, { readonly day: number; readonly used: number }>()
  const standings = new Map<string, DurableLimiterState["standings"][number][1]>()
  return {
    load: (today, now, forgetBefore) =>
      Effect.sync(() => {
        for (const [id, q] of quotas) if (q.day < today) quotas.delete(id)
        for (const [id, s] of standings) {
          if (s.bannedUntil <= forgetBefore && s.waitUntil <= now) standings.delete(id)
        }
        return { quotas: [...quotas], standings: [...standings] }
      }),
    save: (changes) =>
      Effect.sync(() => {
        for (const [id, q] of changes.quotas) {
          const old = quotas.get(id)
          if (old === undefined || q.day > old.day || (q.day === old.day && q.used > old.used)) quotas.set(id, q)
        }
        // Like the durable stores, without the grace of a wait (it is over after a restart).
        for (const [id, s] of changes.standings) standings.set(id, s.graceUntil === 0 ? s : { ...s, graceUntil: 0 })
      })
  }
}
