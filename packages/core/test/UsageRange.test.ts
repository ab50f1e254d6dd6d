import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { UsageRange, UsageStore } from "@petstore/core"

const granularity = fc.constantFrom<UsageStore.Granularity>("hour", "day")
const instant = fc.integer({ min: 1_577_836_800_000, max: 4_000_000_000_000 })

describe("UsageRange", () => {
  it("a resolved range covers the asked instants with whole buckets, and holds at most MAX_BUCKETS of them", () =>
    fc.assert(
      fc.property(granularity, instant, fc.integer({ min: 1, max: 500 * UsageStore.DAY_MILLIS }), (g, from, length) => {
        const to = from + length
        const resolved = UsageRange.resolve({ granularity: g, from, to, now: from })
        const size = UsageStore.bucketMillis(g)
        const buckets = Math.ceil(to / size) - Math.floor(from / size)
        if (buckets > UsageRange.MAX_BUCKETS[g]) {
          expect(Result.isFailure(resolved)).toBe(true)
          return
        }
        const range = Result.getOrThrow(resolved)
        expect(range.from <= from && from < range.from + size).toBe(true)
        expect(range.to >= to && range.to - size < to).toBe(true)
        expect(range.from % size).toBe(0)
        expect(range.to % size).toBe(0)
      })
    ))

  it("an empty or reversed range is refused", () =>
    fc.assert(
      fc.property(granularity, instant, fc.nat(10 * UsageStore.DAY_MILLIS), (g, to, back) => {
        const from = UsageStore.bucketStart(g, to) + back + UsageStore.bucketMillis(g)
        expect(Result.isFailure(UsageRange.resolve({ granularity: g, from, to: UsageStore.bucketStart(g, to), now: to }))).toBe(true)
      })
    ))

  it("without from and to: the default number of buckets, ending with the current one", () =>
    fc.assert(
      fc.property(granularity, instant, (g, now) => {
        const range = Result.getOrThrow(UsageRange.resolve({ granularity: g, now }))
        const size = UsageStore.bucketMillis(g)
        expect(range.to).toBe(UsageStore.bucketStart(g, now) + size)
        expect((range.to - range.from) / size).toBe(UsageRange.DEFAULT_BUCKETS[g])
      })
    ))

  it("fill answers one bucket per interval, in order, zero where nothing was stored, each the sum of its keys", () =>
    fc.assert(
      fc.property(
        fc.array(fc.record({ keyId: fc.constantFrom("k1", "k2"), hour: fc.nat(30), allowed: fc.nat(9) }), { maxLength: 40 }),
        (stored) => {
          const base = Date.UTC(2026, 0, 1)
          const range = Result.getOrThrow(UsageRange.resolve({ granularity: "hour", from: base, to: base + 24 * UsageStore.HOUR_MILLIS, now: base }))
          const buckets = UsageRange.fill(
            range,
            stored.map((s) => ({ keyId: s.keyId, start: base + s.hour * UsageStore.HOUR_MILLIS, counts: { ...UsageStore.zero, allowed: s.allowed } }))
          )
          expect(buckets.map((b) => b.start)).toStrictEqual(Array.from({ length: 24 }, (_, i) => base + i * UsageStore.HOUR_MILLIS))
          buckets.forEach((b, i) => {
            const expected = stored.filter((s) => s.hour === i).reduce((n, s) => n + s.allowed, 0)
            expect(b.counts.allowed).toBe(expected)
          })
        }
      )
    ))
})
