/**
 * Laws every `UsageStore` implementation obeys: flushes add up (whatever the batches and their
 * order), a batch flushed twice counts once, the buckets of a range are zero-filled and ordered,
 * the busiest accounts are ranked from the same sums, and the sweep removes exactly what is past
 * its cutoff.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, Result, type Layer } from "effect"
import { UsageRange, UsageStore } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { numRuns, property } from "./internal/support.js"

type Store = UsageStore.UsageStore["Service"]
type Row = UsageStore.UsageRow

const ACCOUNTS = ["acc_a", "acc_b", "acc_c"] as const
const HOUR = UsageStore.HOUR_MILLIS

/** An hour's start between 2020 and 2090, at a day's start so that a day's hours are all in range. */
const baseHour = fc.integer({ min: 438_288, max: 1_051_896 }).map((days) => Math.floor(days / 24) * 24 * HOUR)

const counts: fc.Arbitrary<UsageStore.Counts> = fc.record({
  allowed: fc.nat(50),
  rateLimited: fc.nat(10),
  quotaExceeded: fc.nat(10),
  banned: fc.nat(10),
  clientErrors: fc.nat(10),
  serverErrors: fc.nat(5)
})

const rows = (base: number): fc.Arbitrary<ReadonlyArray<Row>> =>
  fc.array(
    fc.record({
      accountId: fc.constantFrom(...ACCOUNTS),
      key: fc.constantFrom("1", "2"),
      hour: fc.nat(71).map((h) => base + h * HOUR),
      counts
    }).map(({ accountId, counts, hour, key }) => ({ accountId, keyId: `${accountId}_key${key}`, hour, counts })),
    { maxLength: 30 }
  )

/** The model: the sum of `rows` per account, key and bucket start of `granularity`. */
const modelSums = (rows: ReadonlyArray<Row>, granularity: UsageStore.Granularity) => {
  const sums = new Map<string, UsageStore.Counts>()
  for (const row of rows) {
    const id = `${row.accountId} ${row.keyId} ${UsageStore.bucketStart(granularity, row.hour)}`
    sums.set(id, UsageStore.add(sums.get(id) ?? UsageStore.zero, row.counts))
  }
  return sums
}

/** What the store holds for every account in `[from, to)`, as the model's map. */
const storedSums = (store: Store, granularity: UsageStore.Granularity, from: number, to: number) =>
  Effect.map(Effect.forEach(ACCOUNTS, (accountId) => store.read(accountId, granularity, from, to)), (perAccount) => {
    const sums = new Map<string, UsageStore.Counts>()
    perAccount.forEach((buckets, i) => {
      for (const b of buckets) sums.set(`${ACCOUNTS[i]} ${b.keyId} ${b.start}`, { ...b.counts })
    })
    return sums
  })

const nonZero = (sums: Map<string, UsageStore.Counts>) =>
  new Map([...sums].filter(([, c]) => Object.values(c).some((n) => n > 0)))

/** `rows` cut into batches at `cuts`, named `instance`/1, 2, ... */
const batches = (instance: string, rows: ReadonlyArray<Row>, cuts: ReadonlyArray<number>, at: number) => {
  const points = [...new Set(cuts.map((c) => c % (rows.length + 1)))].sort((a, b) => a - b)
  const out: Array<UsageStore.FlushBatch> = []
  let start = 0
  for (const point of [...points, rows.length]) {
    out.push({ instanceId: instance, seq: out.length + 1, at, rows: rows.slice(start, point) })
    start = point
  }
  return out
}

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<UsageStore.UsageStore, E>,
  options?: LawSuiteOptions
) => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(UsageStore.UsageStore, f), layer)
  const runs = numRuns(options, 20)
  return { name, layer, options, withStore, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Flushing: buckets hold the sum of the rows flushed into them, and a batch flushed again changes nothing. */
const flushLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "additivity: after any batches of two instances, each hourly and daily bucket holds the sum of the rows flushed into it",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base), rows(base), fc.array(fc.nat(40), { maxLength: 4 })))],
    ([[base, first, second, cuts]]) =>
      withStore((store) =>
        Effect.gen(function*() {
          const all = [...batches("instance-1", first, cuts, base), ...batches("instance-2", second, [], base)]
          // Interleaved: the instances' batches arrive in any order.
          for (const batch of all.sort((a, b) => (a.seq % 2) - (b.seq % 2))) yield* store.flush(batch)
          const rowsFlushed = [...first, ...second]
          const to = base + 72 * HOUR
          expect(yield* storedSums(store, "hour", base, to)).toStrictEqual(nonZero(modelSums(rowsFlushed, "hour")))
          expect(yield* storedSums(store, "day", base, to)).toStrictEqual(nonZero(modelSums(rowsFlushed, "day")))
        })
      ),
    runs
  )

  property(
    "idempotent flush: a batch flushed again (at once or after others) changes nothing and answers false",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base), rows(base)))],
    ([[base, first, second]]) =>
      withStore((store) =>
        Effect.gen(function*() {
          const a: UsageStore.FlushBatch = { instanceId: "instance-1", seq: 1, at: base, rows: first }
          const b: UsageStore.FlushBatch = { instanceId: "instance-1", seq: 2, at: base, rows: second }
          expect(yield* store.flush(a)).toBe(true)
          expect(yield* store.flush(a)).toBe(false)
          expect(yield* store.flush(b)).toBe(true)
          expect(yield* store.flush(a)).toBe(false)
          expect(yield* store.flush(b)).toBe(false)
          const to = base + 72 * HOUR
          const expected = nonZero(modelSums([...first, ...second], "hour"))
          expect(yield* storedSums(store, "hour", base, to)).toStrictEqual(expected)
        })
      ),
    runs
  )
}

/** Reading: a range zero-filled, and the accounts ranked by their traffic. */
const readLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "zero-filling: a range's buckets are one per interval, in order, each the account's sum for it (zero where nothing was counted)",
    [
      baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base), fc.nat(71), fc.integer({ min: 1, max: 72 }))),
      fc.constantFrom<UsageStore.Granularity>("hour", "day")
    ],
    ([[base, flushed, offset, length], granularity]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.flush({ instanceId: "instance-1", seq: 1, at: base, rows: flushed })
          const range = Result.getOrThrow(UsageRange.resolve({
            granularity,
            from: base + offset * HOUR,
            to: base + Math.min(72, offset + length) * HOUR + 1,
            now: base
          }))
          const buckets = UsageRange.fill(range, yield* store.read("acc_a", range.granularity, range.from, range.to))
          const size = UsageStore.bucketMillis(granularity)
          expect(buckets.map((b) => b.start)).toStrictEqual(
            Array.from({ length: (range.to - range.from) / size }, (_, i) => range.from + i * size)
          )
          for (const bucket of buckets) {
            const expected = flushed
              .filter((r) => r.accountId === "acc_a" && UsageStore.bucketStart(granularity, r.hour) === bucket.start)
              .reduce((sum, r) => UsageStore.add(sum, r.counts), UsageStore.zero)
            expect(bucket.counts).toStrictEqual(expected)
          }
        })
      ),
    runs
  )

  property(
    "top ranks the accounts of a range by their total or refused requests, most first, leaving out those with none",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base))), fc.constantFrom<"total" | "refused">("total", "refused")],
    ([[base, flushed], by]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.flush({ instanceId: "instance-1", seq: 1, at: base, rows: flushed })
          const to = base + 24 * HOUR
          const sums = new Map<string, UsageStore.Counts>()
          for (const r of flushed) if (r.hour < to) sums.set(r.accountId, UsageStore.add(sums.get(r.accountId) ?? UsageStore.zero, r.counts))
          const expected = UsageStore.rank(
            [...sums].map(([accountId, c]) => ({ accountId, total: UsageStore.total(c), refused: UsageStore.refused(c) })),
            by,
            2
          )
          const top = yield* store.top("hour", base, to, by, 2)
          expect(top.map((t) => ({ ...t }))).toStrictEqual(expected)
          expect((yield* store.top("day", base, to, by, 2)).map((t) => ({ ...t }))).toStrictEqual(expected)
        })
      ),
    runs
  )

  property(
    "sum adds every account's buckets of a range, per bucket, hourly and daily, as reading each account and adding would",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base), fc.nat(72)))],
    ([[base, flushed, offset]]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.flush({ instanceId: "instance-1", seq: 1, at: base, rows: flushed })
          for (const granularity of ["hour", "day"] as const) {
            const from = UsageStore.bucketStart(granularity, base + offset * HOUR)
            const to = base + 72 * HOUR + UsageStore.bucketMillis(granularity)
            const expected = new Map<number, UsageStore.Counts>()
            for (const r of flushed) {
              const start = UsageStore.bucketStart(granularity, r.hour)
              if (start >= from && start < to) expected.set(start, UsageStore.add(expected.get(start) ?? UsageStore.zero, r.counts))
            }
            const summed = [...(yield* store.sum(granularity, from, to))].sort((a, b) => a.start - b.start)
            expect(summed.map((b) => ({ start: b.start, counts: { ...b.counts } }))).toStrictEqual(
              [...expected].sort(([a], [b]) => a - b).map(([start, counts]) => ({ start, counts }))
            )
          }
        })
      ),
    runs
  )
}

/** Retention: the sweep of old buckets and of remembered batch names. */
const retentionLaws = <E>({ withStore, runs }: Suite<E>): void => {
  property(
    "retention: the sweep removes the hourly and daily buckets before their cutoffs and keeps every other",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base), fc.nat(72), fc.nat(3)))],
    ([[base, flushed, hourCut, dayCut]]) =>
      withStore((store) =>
        Effect.gen(function*() {
          yield* store.flush({ instanceId: "instance-1", seq: 1, at: base, rows: flushed })
          const hourlyBefore = base + hourCut * HOUR
          const dailyBefore = base + dayCut * 24 * HOUR
          yield* store.sweep({ hourlyBefore, dailyBefore, flushesBefore: base })
          const to = base + 72 * HOUR
          const keptHourly = flushed.filter((r) => r.hour >= hourlyBefore)
          const keptDaily = flushed.filter((r) => UsageStore.bucketStart("day", r.hour) >= dailyBefore)
          expect(yield* storedSums(store, "hour", base, to)).toStrictEqual(nonZero(modelSums(keptHourly, "hour")))
          expect(yield* storedSums(store, "day", base, to)).toStrictEqual(nonZero(modelSums(keptDaily, "day")))
        })
      ),
    runs
  )

  property(
    "a batch name is remembered until the sweep of names passes it: a batch made after the cutoff is still refused twice",
    [baseHour.chain((base) => fc.tuple(fc.constant(base), rows(base)))],
    ([[base, flushed]]) =>
      withStore((store) =>
        Effect.gen(function*() {
          const batch: UsageStore.FlushBatch = { instanceId: "instance-1", seq: 7, at: base + 1, rows: flushed }
          yield* store.flush(batch)
          yield* store.sweep({ hourlyBefore: 0, dailyBefore: 0, flushesBefore: base + 1 })
          expect(yield* store.flush(batch)).toBe(false)
        })
      ),
    Math.min(runs, 5)
  )
}

/**
 * Registers the laws of `UsageStore` for the implementation `layer` provides (an empty store per build).
 *
 * @category law suites
 * @since 1.0.0
 */
export const usageStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<UsageStore.UsageStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`UsageStore laws: ${name}`, () => {
    flushLaws(suite)
    readLaws(suite)
    retentionLaws(suite)
  })
}
