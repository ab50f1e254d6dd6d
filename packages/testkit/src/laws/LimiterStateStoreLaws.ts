/**
 * Laws every `LimiterStateStore` implementation obeys: what the rate limiter saves is what it loads
 * back after a restart, a used daily quota is never reset by a restart (whichever instance saved
 * last), and what no longer matters is forgotten. The grace of a wait is not kept: after a restart it
 * is over (it lasts a fraction of a second).
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { type BanPolicy, DailyQuota, LimiterStateStore } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, instant, numRuns, property } from "./internal/support.js"

type Store = LimiterStateStore.LimiterStateStore["Service"]

const accountId = base62(6).map((s) => `acc_${s}`)
const keyId = base62(6).map((s) => `key_${s}`)
const used = fc.integer({ min: 0, max: 1_000_000 })

/** A standing still in force at `now`: banned or told to wait past it. */
const standingInForce = (now: number): fc.Arbitrary<BanPolicy.KeyStanding> =>
  fc.record({
    waitUntil: fc.integer({ min: now + 1, max: now + 86_400_000 }),
    graceUntil: fc.oneof(fc.constant(0), fc.integer({ min: now - 1_000, max: now + 1_000 })),
    strikes: fc.integer({ min: 0, max: 10 }),
    bannedUntil: fc.integer({ min: now + 1, max: now + 86_400_000 }),
    bans: fc.integer({ min: 1, max: 8 }),
    lastBanAt: fc.integer({ min: now - 86_400_000, max: now })
  })

const sorted = <A>(entries: ReadonlyArray<readonly [string, A]>) => [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * Registers the laws of `LimiterStateStore` for the implementation `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const limiterStateStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<LimiterStateStore.LimiterStateStore, E>,
  options?: LawSuiteOptions
): void => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(LimiterStateStore.LimiterStateStore, f), layer)
  const runs = numRuns(options, 15)

  describe(`LimiterStateStore laws: ${name}`, () => {
    property(
      "load returns today's daily counts and the standings in force, as they were saved but with their grace over",
      [
        instant.chain((now) =>
          fc.tuple(
            fc.constant(now),
            fc.uniqueArray(fc.tuple(accountId, used), { selector: ([id]) => id, maxLength: 12 }),
            fc.uniqueArray(fc.tuple(keyId, standingInForce(now)), { selector: ([id]) => id, maxLength: 6 })
          )
        )
      ],
      ([[now, counts, standings]]) =>
        withStore((store) =>
          Effect.gen(function*() {
            const today = DailyQuota.dayOf(now)
            const quotas = counts.map(([id, n]) => [id, { day: today, used: n }] as const)
            yield* store.save({ quotas, standings })
            const loaded = yield* store.load(today, now, now - 86_400_000)
            expect(sorted(loaded.quotas)).toStrictEqual(sorted(quotas))
            const graceOver = standings.map(([id, s]) => [id, { ...s, graceUntil: 0 }] as const)
            expect(sorted(loaded.standings)).toStrictEqual(sorted(graceOver))
          })
        ),
      runs
    )

    property(
      "a used daily quota is never lowered: per account and day the highest count saved is kept, whatever the order of the saves",
      [instant, accountId, fc.array(used, { minLength: 1, maxLength: 6 })],
      ([now, id, saves]) =>
        withStore((store) =>
          Effect.gen(function*() {
            const today = DailyQuota.dayOf(now)
            for (const n of saves) yield* store.save({ quotas: [[id, { day: today, used: n }]], standings: [] })
            const loaded = yield* store.load(today, now, now - 86_400_000)
            expect(loaded.quotas).toStrictEqual([[id, { day: today, used: Math.max(...saves) }]])
          })
        ),
      runs
    )

    property(
      "a later day's count replaces an earlier day's, and counts of days before today are forgotten at load",
      [instant, accountId, accountId, used, used],
      ([now, a, b, yesterdayCount, todayCount]) =>
        withStore((store) =>
          Effect.gen(function*() {
            if (a === b) return
            const today = DailyQuota.dayOf(now)
            yield* store.save({ quotas: [[a, { day: today - 1, used: yesterdayCount }], [b, { day: today - 1, used: 5 }]], standings: [] })
            yield* store.save({ quotas: [[a, { day: today, used: todayCount }]], standings: [] })
            const loaded = yield* store.load(today, now, now - 86_400_000)
            expect(loaded.quotas).toStrictEqual([[a, { day: today, used: todayCount }]])
          })
        ),
      runs
    )

    property(
      "standings with nothing left to remember are forgotten at load; the others are kept",
      [instant, keyId, keyId],
      ([now, spent, banned]) =>
        withStore((store) =>
          Effect.gen(function*() {
            if (spent === banned) return
            const forgetBefore = now - 86_400_000
            const over: BanPolicy.KeyStanding = { waitUntil: now - 1, graceUntil: 0, strikes: 0, bannedUntil: forgetBefore - 1, bans: 1, lastBanAt: forgetBefore - 900_000 }
            const inForce: BanPolicy.KeyStanding = { waitUntil: 0, graceUntil: 0, strikes: 0, bannedUntil: now + 60_000, bans: 2, lastBanAt: now - 1_000 }
            yield* store.save({ quotas: [], standings: [[spent, over], [banned, inForce]] })
            const loaded = yield* store.load(DailyQuota.dayOf(now), now, forgetBefore)
            expect(loaded.standings).toStrictEqual([[banned, inForce]])
          })
        ),
      runs
    )
  })
}
