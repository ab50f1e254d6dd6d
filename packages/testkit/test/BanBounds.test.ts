import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import { BanPolicy } from "@petstore/core"
import * as BanBounds from "../src/conformance/BanBounds.js"

const GRACE = 250

/** A key refused once, decided within [0, 2], told to wait 2 s (Retry-After rounds up: until [1000, 2002]). */
const refusedOnce = () => {
  const standing = BanBounds.none()
  BanBounds.refused(standing, BanBounds.strikesIfRefused(standing, 0, 2), 0, 2, 2, GRACE, 10)
  return standing
}

describe("BanBounds", () => {
  it("a first refusal starts a wait and its grace, without a strike", () => {
    const standing = refusedOnce()
    expect(standing).toEqual({ waitUntil: { lo: 1_000, hi: 2_002 }, graceUntil: { lo: 250, hi: 252 }, strikes: { min: 0, max: 0 } })
  })

  it("a refusal certainly within the grace is no strike; certainly after it and within the wait, one; otherwise, maybe", () => {
    const standing = refusedOnce()
    expect(BanBounds.strikesIfRefused(standing, 10, 249)).toEqual({ min: 0, max: 0 })
    expect(BanBounds.strikesIfRefused(standing, 252, 260)).toEqual({ min: 1, max: 1 })
    expect(BanBounds.strikesIfRefused(standing, 240, 260)).toEqual({ min: 0, max: 1 })
    // perhaps after the wait (a new one, no strike), perhaps within it
    expect(BanBounds.strikesIfRefused(standing, 1_500, 1_510)).toEqual({ min: 0, max: 1 })
    expect(BanBounds.strikesIfRefused(standing, 2_002, 2_010)).toEqual({ min: 0, max: 0 })
  })

  prop(
    "the bounds always hold the server's standing, wherever in [sent, answered] it decided: a correct server never fails",
    [
      fc.integer({ min: 0, max: 5 }),
      fc.integer({ min: 0, max: 600 }),
      fc.array(
        fc.record({
          gap: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 1_500 })),
          took: fc.integer({ min: 0, max: 30 }),
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          wait: fc.integer({ min: 1, max: 2_500 })
        }),
        { minLength: 1, maxLength: 60 }
      )
    ],
    ([threshold, graceMillis, requests]) => {
      const options = { ...BanPolicy.DEFAULT_OPTIONS, threshold, graceMillis }
      let server = BanPolicy.CLEAN
      const model = BanBounds.none()
      let s = 1_000_000
      for (const { at, gap, took, wait } of requests) {
        s += gap
        const r = s + took
        const t = s + Math.round(at * took)
        // Every request is refused (an empty bucket), told to wait `wait` ms: Retry-After rounds it up.
        const { banned, standing } = BanPolicy.onRejected(server, t, wait, options)
        const strikes = BanBounds.strikesIfRefused(model, s, r)
        if (banned) {
          expect(strikes.max).toBeGreaterThan(threshold)
          server = BanPolicy.CLEAN
          Object.assign(model, BanBounds.none())
        } else {
          expect(strikes.min).toBeLessThanOrEqual(standing.strikes)
          expect(strikes.max).toBeGreaterThanOrEqual(standing.strikes)
          BanBounds.refused(model, strikes, s, r, Math.ceil(wait / 1000), graceMillis, threshold)
          server = standing
          expect(model.graceUntil.lo).toBeLessThanOrEqual(server.graceUntil)
          expect(model.graceUntil.hi).toBeGreaterThanOrEqual(server.graceUntil)
          expect(model.waitUntil.lo).toBeLessThanOrEqual(server.waitUntil)
          expect(model.waitUntil.hi).toBeGreaterThanOrEqual(server.waitUntil)
        }
        s = r
      }
    }
  )
})
