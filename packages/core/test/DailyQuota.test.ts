import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import * as DailyQuota from "../src/DailyQuota.js"

const { DAY_MS } = DailyQuota
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10)

describe("DailyQuota", () => {
  for (const { at, day } of [
    { at: "1970-01-01T00:00:00.000Z", day: 0 },
    { at: "1970-01-01T23:59:59.999Z", day: 0 },
    { at: "1970-01-02T00:00:00.000Z", day: 1 },
    { at: "2024-12-31T23:59:59.999Z", day: 20088 },
    { at: "2025-01-01T00:00:00.000Z", day: 20089 },
    { at: "2028-02-29T12:00:00.000Z", day: 21243 }
  ]) {
    it(`dayOf(${at}) = ${day}`, () => {
      expect(DailyQuota.dayOf(Date.parse(at))).toBe(day)
    })
  }

  for (const { now, resetAt, used } of [
    // the quota used 7 requests on 2025-01-01; roll it at `now`
    { now: "2025-01-01T00:00:00.000Z", used: 7, resetAt: "2025-01-02T00:00:00.000Z" },
    { now: "2025-01-01T23:59:59.999Z", used: 7, resetAt: "2025-01-02T00:00:00.000Z" },
    { now: "2025-01-02T00:00:00.000Z", used: 0, resetAt: "2025-01-03T00:00:00.000Z" },
    { now: "2025-01-02T00:00:00.001Z", used: 0, resetAt: "2025-01-03T00:00:00.000Z" },
    { now: "2025-01-09T15:30:00.000Z", used: 0, resetAt: "2025-01-10T00:00:00.000Z" },
    // a clock that went back to the previous day keeps today's count
    { now: "2024-12-31T23:59:59.999Z", used: 7, resetAt: "2025-01-02T00:00:00.000Z" }
  ]) {
    it(`roll at ${now}: used ${used}, resets at ${resetAt}`, () => {
      const state = DailyQuota.consume(DailyQuota.empty(Date.parse("2025-01-01T08:00:00.000Z")), 7)
      const rolled = DailyQuota.roll(state, Date.parse(now))
      expect(rolled.used).toBe(used)
      expect(DailyQuota.resetAt(rolled)).toBe(Date.parse(resetAt))
      if (used === 7) expect(rolled).toBe(state)
    })
  }

  for (const c of [
    // limit, used, cost → remaining, allows
    { limit: 1000, used: 0, cost: 1, remaining: 1000, allows: true },
    { limit: 1000, used: 999, cost: 1, remaining: 1, allows: true },
    { limit: 1000, used: 1000, cost: 1, remaining: 0, allows: false },
    { limit: 1000, used: 999, cost: 2, remaining: 1, allows: false },
    { limit: 1, used: 0, cost: 1, remaining: 1, allows: true },
    { limit: 1, used: 1, cost: 1, remaining: 0, allows: false },
    // a count restored from a bigger plan after a downgrade
    { limit: 1000, used: 5000, cost: 1, remaining: 0, allows: false }
  ]) {
    it(`limit ${c.limit}, used ${c.used}, cost ${c.cost} → remaining ${c.remaining}, allows: ${c.allows}`, () => {
      const state = { day: 20089, used: c.used }
      expect(DailyQuota.remaining(state, c.limit)).toBe(c.remaining)
      expect(DailyQuota.allows(state, c.limit, c.cost)).toBe(c.allows)
    })
  }

  it("consume adds the cost to the same day", () => {
    expect(DailyQuota.consume({ day: 3, used: 4 }, 2)).toEqual({ day: 3, used: 6 })
    expect(DailyQuota.empty(Date.parse("2025-01-01T23:00:00.000Z"))).toEqual({ day: 20089, used: 0 })
  })

  const arbInstant = fc.integer({ min: 0, max: 4_000_000_000_000 })

  prop(
    "roll starts from zero exactly when the UTC date changes",
    [arbInstant, fc.integer({ min: 0, max: 3 * DAY_MS }), fc.integer({ min: 1, max: 100_000 })],
    ([start, elapsed, used]) => {
      const state = { day: DailyQuota.dayOf(start), used }
      const rolled = DailyQuota.roll(state, start + elapsed)
      expect(rolled.used).toBe(utcDate(start) === utcDate(start + elapsed) ? used : 0)
      expect(rolled.day).toBe(DailyQuota.dayOf(start + elapsed))
    }
  )

  prop("resetAt is the first instant of the next UTC day", [arbInstant], ([now]) => {
    const reset = DailyQuota.resetAt(DailyQuota.empty(now))
    expect(reset).toBeGreaterThan(now)
    expect(reset - now).toBeLessThanOrEqual(DAY_MS)
    expect(new Date(reset).toISOString().slice(10)).toBe("T00:00:00.000Z")
    expect(utcDate(reset - 1)).toBe(utcDate(now))
  })
})
