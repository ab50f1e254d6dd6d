import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"

import { DEFAULT_DELAYS_SECONDS, JITTER, nextDelayMillis, parseDelays } from "../src/RetrySchedule.js"

const delaysArb = fc.array(fc.integer({ min: 0, max: 36_000_000 }), { minLength: 1, maxLength: 20 })
const jitterArb = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true })

describe("RetrySchedule", () => {
  it("the default is Svix's: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 hours in all)", () => {
    expect(DEFAULT_DELAYS_SECONDS).toEqual([5, 300, 1_800, 7_200, 18_000, 36_000, 36_000])
    const hours = DEFAULT_DELAYS_SECONDS.reduce((a, b) => a + b, 0) / 3600
    expect(hours).toBeGreaterThan(27)
    expect(hours).toBeLessThan(29)
  })

  it("parses seconds, comma-separated, into milliseconds; refuses anything else", () => {
    expect(parseDelays("5,300,1800")).toEqual(Option.some([5_000, 300_000, 1_800_000]))
    expect(parseDelays(" 0.05 , 0.1")).toEqual(Option.some([50, 100]))
    for (const bad of ["", "5,,6", "-1", "abc", "1e3", "5;6", String(8 * 24 * 3600), Array(21).fill("1").join(",")]) {
      expect(parseDelays(bad)).toEqual(Option.none())
    }
  })

  it("round-trips every schedule it could print", () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 604_800 }), { minLength: 1, maxLength: 20 }), (seconds) => {
      expect(parseDelays(seconds.join(","))).toEqual(Option.some(seconds.map((s) => s * 1000)))
    }))
  })

  it("after n failed attempts the wait is the n-th delay within ±20 %, and none once the schedule is spent", () => {
    fc.assert(fc.property(delaysArb, fc.integer({ min: 1, max: 30 }), jitterArb, (delays, attempts, jitter) => {
      const next = nextDelayMillis(delays, attempts, jitter)
      if (attempts > delays.length) {
        expect(next).toEqual(Option.none())
        return
      }
      const base = delays[attempts - 1]!
      const wait = Option.getOrThrow(next)
      expect(wait).toBeGreaterThanOrEqual(Math.floor(base * (1 - JITTER)))
      expect(wait).toBeLessThanOrEqual(Math.ceil(base * (1 + JITTER)))
    }))
  })

  it("a message gets exactly delays.length + 1 attempts", () => {
    fc.assert(fc.property(delaysArb, jitterArb, (delays, jitter) => {
      let attempts = 1
      while (Option.isSome(nextDelayMillis(delays, attempts, jitter))) attempts++
      expect(attempts).toBe(delays.length + 1)
    }))
  })

  it("Retry-After is honoured within [delay, 2·delay]: it can slow retries down, never speed them up or stall them", () => {
    fc.assert(fc.property(delaysArb, fc.nat({ max: 19 }), fc.integer({ min: 0, max: 10 ** 9 }), jitterArb, (delays, i, retryAfter, jitter) => {
      fc.pre(i < delays.length)
      const base = delays[i]!
      const wait = Option.getOrThrow(nextDelayMillis(delays, i + 1, jitter, retryAfter))
      expect(wait).toBeGreaterThanOrEqual(base)
      expect(wait).toBeLessThanOrEqual(2 * base)
      if (retryAfter >= base && retryAfter <= 2 * base) expect(wait).toBe(retryAfter)
    }))
  })
})
