import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import * as TokenBucket from "../src/TokenBucket.js"

const { UNIT } = TokenBucket

// A bucket of 1..2000 tokens per minute holding any number of units it can hold.
const arbBucket = fc.integer({ min: 1, max: 2000 }).chain((capacity) =>
  fc.record({
    capacity: fc.constant(capacity),
    units: fc.integer({ min: 0, max: capacity * UNIT }),
    at: fc.integer({ min: 0, max: 4_000_000_000_000 })
  })
)

describe("TokenBucket", () => {
  it("full holds capacity tokens as capacity·60000 units", () => {
    expect(TokenBucket.full(60, 1_000)).toEqual({ units: 3_600_000, at: 1_000 })
    expect(TokenBucket.tokens(TokenBucket.full(60, 1_000))).toBe(60)
  })

  for (const { after, capacity, elapsed, tokens, units } of [
    // capacity, units, elapsed ms, units after, whole tokens after
    { capacity: 60, units: 0, elapsed: 1_000, after: 60_000, tokens: 1 },
    { capacity: 60, units: 0, elapsed: 999, after: 59_940, tokens: 0 },
    { capacity: 60, units: 0, elapsed: 60_000, after: 3_600_000, tokens: 60 },
    { capacity: 60, units: 0, elapsed: 120_000, after: 3_600_000, tokens: 60 },
    { capacity: 60, units: 3_599_999, elapsed: 1, after: 3_600_000, tokens: 60 },
    { capacity: 1, units: 0, elapsed: 59_999, after: 59_999, tokens: 0 },
    { capacity: 1, units: 0, elapsed: 60_000, after: 60_000, tokens: 1 },
    { capacity: 7, units: 0, elapsed: 8_571, after: 59_997, tokens: 0 },
    { capacity: 7, units: 0, elapsed: 8_572, after: 60_004, tokens: 1 },
    { capacity: 2000, units: 0, elapsed: 30, after: 60_000, tokens: 1 },
    { capacity: 1000, units: 30_000, elapsed: 30, after: 60_000, tokens: 1 }
  ]) {
    it(`refill: capacity ${capacity}, ${units} units, +${elapsed} ms → ${after} units`, () => {
      const refilled = TokenBucket.refill({ units, at: 10_000 }, capacity, 10_000 + elapsed)
      expect(refilled).toEqual({ units: after, at: 10_000 + elapsed })
      expect(TokenBucket.tokens(refilled)).toBe(tokens)
    })
  }

  it("refill at the same instant or on a clock that went backwards changes nothing", () => {
    const state = { units: 100, at: 5_000 }
    expect(TokenBucket.refill(state, 60, 5_000)).toBe(state)
    expect(TokenBucket.refill(state, 60, 4_000)).toBe(state)
  })

  for (const { capacity, cost, units, wait } of [
    // capacity, units, cost, ms until the cost is there
    { capacity: 60, units: 0, cost: 1, wait: 1_000 },
    { capacity: 60, units: 59_999, cost: 1, wait: 1 },
    { capacity: 60, units: 60_000, cost: 1, wait: 0 },
    { capacity: 60, units: 3_600_000, cost: 1, wait: 0 },
    { capacity: 60, units: 0, cost: 2, wait: 2_000 },
    { capacity: 60, units: 30_000, cost: 1, wait: 500 },
    { capacity: 7, units: 0, cost: 1, wait: 8_572 },
    { capacity: 1, units: 0, cost: 1, wait: 60_000 },
    { capacity: 1, units: 59_999, cost: 1, wait: 1 },
    { capacity: 3, units: 30_000, cost: 1, wait: 10_000 },
    { capacity: 1000, units: 0, cost: 1, wait: 60 },
    { capacity: 2000, units: 0, cost: 1, wait: 30 },
    { capacity: 2000, units: 1, cost: 1, wait: 30 }
  ]) {
    it(`waitMillis: capacity ${capacity}, ${units} units, cost ${cost} → ${wait} ms`, () => {
      expect(TokenBucket.waitMillis({ units, at: 0 }, capacity, cost)).toBe(wait)
    })
  }

  for (const { capacity, full, units } of [
    // capacity, units, ms until full
    { capacity: 60, units: 3_600_000, full: 0 },
    { capacity: 60, units: 0, full: 60_000 },
    { capacity: 60, units: 3_540_000, full: 1_000 },
    { capacity: 60, units: 3_599_999, full: 1 },
    { capacity: 7, units: 0, full: 60_000 },
    { capacity: 7, units: 1, full: 60_000 },
    { capacity: 7, units: 7, full: 59_999 },
    { capacity: 1, units: 0, full: 60_000 },
    { capacity: 2000, units: 119_940_000, full: 30 }
  ]) {
    it(`millisUntilFull: capacity ${capacity}, ${units} units → ${full} ms`, () => {
      expect(TokenBucket.millisUntilFull({ units, at: 0 }, capacity)).toBe(full)
    })
  }

  for (const { tokens, units } of [
    { units: 0, tokens: 0 },
    { units: 59_999, tokens: 0 },
    { units: 60_000, tokens: 1 },
    { units: 3_599_999, tokens: 59 },
    { units: 3_600_000, tokens: 60 }
  ]) {
    it(`tokens: ${units} units → ${tokens}`, () => {
      expect(TokenBucket.tokens({ units, at: 0 })).toBe(tokens)
    })
  }

  it("take removes cost·60000 units and keeps the refill instant", () => {
    expect(TokenBucket.take({ units: 3_600_000, at: 5 }, 1)).toEqual({ units: 3_540_000, at: 5 })
    expect(TokenBucket.take({ units: 180_000, at: 5 }, 3)).toEqual({ units: 0, at: 5 })
  })

  prop(
    "waiting waitMillis makes the cost available, one ms less does not",
    [arbBucket, fc.integer({ min: 1, max: 2000 })],
    ([{ at, capacity, units }, rawCost]) => {
      const cost = Math.min(rawCost, capacity)
      const state = { units, at }
      const wait = TokenBucket.waitMillis(state, capacity, cost)
      expect(Number.isInteger(wait)).toBe(true)
      expect(TokenBucket.refill(state, capacity, at + wait).units).toBeGreaterThanOrEqual(cost * UNIT)
      if (wait > 0) expect(TokenBucket.refill(state, capacity, at + wait - 1).units).toBeLessThan(cost * UNIT)
    }
  )

  prop(
    "after millisUntilFull the bucket is full, one ms earlier it is not",
    [arbBucket],
    ([{ at, capacity, units }]) => {
      const state = { units, at }
      const millis = TokenBucket.millisUntilFull(state, capacity)
      expect(millis).toBeGreaterThanOrEqual(0)
      expect(millis).toBeLessThanOrEqual(60_000)
      expect(TokenBucket.refill(state, capacity, at + millis).units).toBe(capacity * UNIT)
      if (millis > 0) expect(TokenBucket.refill(state, capacity, at + millis - 1).units).toBeLessThan(capacity * UNIT)
    }
  )

  prop(
    "refilling in steps equals refilling once, and units stay within [0, capacity·60000]",
    [arbBucket, fc.array(fc.integer({ min: 0, max: 90_000 }), { maxLength: 20 })],
    ([{ at, capacity, units }, gaps]) => {
      let stepped = { units, at }
      let now = at
      for (const gap of gaps) {
        now += gap
        stepped = TokenBucket.refill(stepped, capacity, now)
        expect(stepped.units).toBeGreaterThanOrEqual(0)
        expect(stepped.units).toBeLessThanOrEqual(capacity * UNIT)
      }
      expect(stepped).toEqual(TokenBucket.refill({ units, at }, capacity, now))
    }
  )
})
