import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import * as BanPolicy from "../src/BanPolicy.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const OPTIONS = BanPolicy.DEFAULT_OPTIONS
const T0 = Date.parse("2025-03-01T12:00:00.000Z")

/**
 * One rejection at `now` (told to wait 1 s) followed by `early` requests at the same instant: the
 * last result, and whether any request before the last was banned.
 */
const rejectAndRepeat = (standing: BanPolicy.KeyStanding, now: number, early: number, options = OPTIONS) => {
  let result = BanPolicy.onRejected(standing, now, 1_000, options)
  let bannedBefore = false
  for (let i = 0; i < early; i++) {
    bannedBefore ||= result.banned
    result = BanPolicy.onRejected(result.standing, now, 1_000, options)
  }
  return { ...result, bannedBefore }
}

/** Bans a key at `now`: a rejection, then threshold + 1 early requests, the last of which bans. */
const banAt = (standing: BanPolicy.KeyStanding, now: number, options = OPTIONS) => {
  const { banned, bannedBefore, standing: after } = rejectAndRepeat(standing, now, options.threshold + 1, options)
  expect([bannedBefore, banned]).toEqual([false, true])
  return after
}

describe("BanPolicy", () => {
  it("defaults: threshold 10, 15 min doubling, capped at 24 h, remembered 24 h", () => {
    expect(OPTIONS).toEqual({ threshold: 10, baseMillis: 15 * MINUTE, maxMillis: 24 * HOUR, memoryMillis: 24 * HOUR })
  })

  for (const { bans, minutes } of [
    { bans: 1, minutes: 15 },
    { bans: 2, minutes: 30 },
    { bans: 3, minutes: 60 },
    { bans: 4, minutes: 120 },
    { bans: 5, minutes: 240 },
    { bans: 6, minutes: 480 },
    { bans: 7, minutes: 960 },
    { bans: 8, minutes: 1440 },
    { bans: 9, minutes: 1440 },
    { bans: 31, minutes: 1440 },
    { bans: 1000, minutes: 1440 }
  ]) {
    it(`banMillis: ban ${bans} in a row lasts ${minutes} min`, () => {
      expect(BanPolicy.banMillis(bans, OPTIONS)).toBe(minutes * MINUTE)
    })
  }

  it("the first rejection starts a wait without a strike; each request before its end is a strike", () => {
    const first = BanPolicy.onRejected(BanPolicy.CLEAN, T0, 1_500, OPTIONS)
    expect(first).toEqual({ banned: false, standing: { ...BanPolicy.CLEAN, waitUntil: T0 + 1_500, strikes: 0 } })
    const early = BanPolicy.onRejected(first.standing, T0 + 1_499, 1, OPTIONS)
    expect(early).toEqual({ banned: false, standing: { ...BanPolicy.CLEAN, waitUntil: T0 + 1_500, strikes: 1 } })
    // Arriving exactly when told is not a strike and starts a new wait.
    const onTime = BanPolicy.onRejected(early.standing, T0 + 1_500, 700, OPTIONS)
    expect(onTime).toEqual({ banned: false, standing: { ...BanPolicy.CLEAN, waitUntil: T0 + 2_200, strikes: 0 } })
  })

  for (const threshold of [0, 1, 3, 10]) {
    it(`threshold ${threshold}: threshold early requests are tolerated, one more bans`, () => {
      const options = { ...OPTIONS, threshold }
      const tolerated = rejectAndRepeat(BanPolicy.CLEAN, T0, threshold, options)
      expect([tolerated.bannedBefore, tolerated.banned]).toEqual([false, false])
      expect(tolerated.standing.strikes).toBe(threshold)
      const banned = BanPolicy.onRejected(tolerated.standing, T0 + 1, 1_000, options)
      expect(banned).toEqual({
        banned: true,
        standing: { waitUntil: 0, strikes: 0, bannedUntil: T0 + 1 + 15 * MINUTE, bans: 1, lastBanAt: T0 + 1 }
      })
    })
  }

  it("isBanned until the last millisecond of the ban", () => {
    const standing = banAt(BanPolicy.CLEAN, T0)
    expect(BanPolicy.isBanned(standing, T0)).toBe(true)
    expect(BanPolicy.isBanned(standing, T0 + 15 * MINUTE - 1)).toBe(true)
    expect(BanPolicy.isBanned(standing, T0 + 15 * MINUTE)).toBe(false)
  })

  it("an admitted request ends the wait and its strikes but keeps the ban history", () => {
    const waiting = rejectAndRepeat(BanPolicy.CLEAN, T0, 3).standing
    expect(BanPolicy.onAdmitted(waiting)).toEqual(BanPolicy.CLEAN)
    const banned = banAt(BanPolicy.CLEAN, T0)
    expect(BanPolicy.onAdmitted(banned)).toBe(banned)
    expect(BanPolicy.onAdmitted(BanPolicy.CLEAN)).toBe(BanPolicy.CLEAN)
  })

  it("escalation: a key that reoffends as soon as each ban ends gets 15, 30, 60 ... min, then 24 h every time", () => {
    const expected = [15, 30, 60, 120, 240, 480, 960, 1440, 1440, 1440, 1440]
    let standing = BanPolicy.CLEAN
    let now = T0
    const lengths: Array<number> = []
    for (let i = 0; i < expected.length; i++) {
      standing = banAt(standing, now)
      lengths.push((standing.bannedUntil - now) / MINUTE)
      expect(standing.bans).toBe(i + 1)
      now = standing.bannedUntil
    }
    expect(lengths).toEqual(expected)
  })

  for (const { minutes, quiet } of [
    // ms between the end of the previous (second, 30 min) ban and the next offence → next ban length
    { quiet: 0, minutes: 60 },
    { quiet: 1, minutes: 60 },
    { quiet: 24 * HOUR - 1, minutes: 60 },
    { quiet: 24 * HOUR, minutes: 15 },
    { quiet: 30 * 24 * HOUR, minutes: 15 }
  ]) {
    it(`escalation resets after 24 h without bans: ${quiet} ms after the ban → ${minutes} min`, () => {
      const second = banAt(banAt(BanPolicy.CLEAN, T0), T0 + 15 * MINUTE)
      expect(second.bannedUntil).toBe(T0 + 45 * MINUTE)
      const next = banAt(second, second.bannedUntil + quiet)
      expect(next.bannedUntil - (second.bannedUntil + quiet)).toBe(minutes * MINUTE)
      expect(next.bans).toBe(minutes === 15 ? 1 : 3)
    })
  }

  const arbOptions = fc.record({
    threshold: fc.integer({ min: 0, max: 20 }),
    baseMillis: fc.integer({ min: 1, max: HOUR }),
    maxMillis: fc.integer({ min: 1, max: 48 * HOUR }),
    memoryMillis: fc.integer({ min: 0, max: 48 * HOUR })
  })

  it.prop(
    "a key that never arrives before it was told to is never banned",
    [arbOptions, fc.array(fc.tuple(fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 1, max: 100_000 })))],
    ([options, schedule]) => {
      let standing = BanPolicy.CLEAN
      let now = T0
      for (const [extra, wait] of schedule) {
        now = Math.max(now, standing.waitUntil) + extra
        const result = BanPolicy.onRejected(standing, now, wait, options)
        expect(result.banned).toBe(false)
        expect(result.standing.strikes).toBe(0)
        standing = result.standing
      }
    }
  )

  it.prop(
    "a ban within memoryMillis of the last one's end lasts twice as long (capped at maxMillis), any other lasts baseMillis",
    [arbOptions, fc.array(fc.integer({ min: 0, max: 60 * HOUR }), { minLength: 1, maxLength: 40 })],
    ([options, pauses]) => {
      let standing = BanPolicy.CLEAN
      let now = T0
      let previous = 0
      for (const pause of pauses) {
        now = Math.max(now, standing.bannedUntil) + pause
        const remembered = standing.bans > 0 && now - standing.bannedUntil < options.memoryMillis
        standing = banAt(standing, now, options)
        const length = standing.bannedUntil - now
        const expected = remembered ? previous * 2 : options.baseMillis
        expect(length).toBe(Math.min(expected, options.maxMillis))
        previous = length
      }
    }
  )
})
