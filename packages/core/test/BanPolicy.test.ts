import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import * as BanPolicy from "../src/BanPolicy.js"

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const OPTIONS = BanPolicy.DEFAULT_OPTIONS
const T0 = Date.parse("2025-03-01T12:00:00.000Z")

/**
 * One rejection at `now` (told to wait 1 s past the grace) followed by `early` requests at the end of
 * its grace: the last result, and whether any request before the last was banned.
 */
const rejectAndRepeat = (standing: BanPolicy.KeyStanding, now: number, early: number, options = OPTIONS) => {
  const wait = options.graceMillis + 1_000
  let result = BanPolicy.onRejected(standing, now, wait, options)
  let bannedBefore = false
  for (let i = 0; i < early; i++) {
    bannedBefore ||= result.banned
    result = BanPolicy.onRejected(result.standing, now + options.graceMillis, 1_000, options)
  }
  return { ...result, bannedBefore }
}

/**
 * Bans a key whose wait starts at `now`: a rejection, then threshold + 1 early requests after the
 * grace, the last of which bans (at `now + graceMillis`).
 */
const banAt = (standing: BanPolicy.KeyStanding, now: number, options = OPTIONS) => {
  const { banned, bannedBefore, standing: after } = rejectAndRepeat(standing, now, options.threshold + 1, options)
  expect([bannedBefore, banned]).toEqual([false, true])
  expect(after.lastBanAt).toBe(now + options.graceMillis)
  return after
}

/** Rejections at `instants`, each told to wait until `until` (as for one token): the results in order. */
const rejections = (
  standing: BanPolicy.KeyStanding,
  instants: ReadonlyArray<number>,
  until: number,
  options = OPTIONS
) =>
  instants.map((now) => {
    const result = BanPolicy.onRejected(standing, now, until - now, options)
    standing = result.standing
    return result
  })

const ascending = (instants: ReadonlyArray<number>) => [...instants].sort((a, b) => a - b)

describe("BanPolicy", () => {
  it("defaults: threshold 10, 15 min doubling, capped at 24 h, remembered 24 h, a grace of 250 ms", () => {
    expect(OPTIONS).toEqual({
      threshold: 10,
      baseMillis: 15 * MINUTE,
      maxMillis: 24 * HOUR,
      memoryMillis: 24 * HOUR,
      graceMillis: 250
    })
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

  it("the first rejection starts a wait and its grace without a strike; each request after the grace and before the wait's end is a strike", () => {
    const first = BanPolicy.onRejected(BanPolicy.CLEAN, T0, 1_500, OPTIONS)
    const waiting = { ...BanPolicy.CLEAN, waitUntil: T0 + 1_500, graceUntil: T0 + 250 }
    expect(first).toEqual({ banned: false, standing: waiting })
    // Within the grace: not a strike, and the wait may only grow.
    const inGrace = BanPolicy.onRejected(first.standing, T0 + 249, 1_300, OPTIONS)
    expect(inGrace).toEqual({ banned: false, standing: { ...waiting, waitUntil: T0 + 1_549 } })
    const graceOver = BanPolicy.onRejected(inGrace.standing, T0 + 250, 1, OPTIONS)
    expect(graceOver).toEqual({ banned: false, standing: { ...waiting, waitUntil: T0 + 1_549, strikes: 1 } })
    const early = BanPolicy.onRejected(graceOver.standing, T0 + 1_548, 1, OPTIONS)
    expect(early).toEqual({ banned: false, standing: { ...waiting, waitUntil: T0 + 1_549, strikes: 2 } })
    // Arriving exactly when told is not a strike and starts a new wait, with a grace of its own.
    const onTime = BanPolicy.onRejected(early.standing, T0 + 1_549, 700, OPTIONS)
    expect(onTime).toEqual({
      banned: false,
      standing: { ...BanPolicy.CLEAN, waitUntil: T0 + 2_249, graceUntil: T0 + 1_799, strikes: 0 }
    })
  })

  it("72 requests at once on a fresh free key: the 12 refused ones fall within the grace and ban nothing", () => {
    // 60 pass; each of the other 12 is told to wait 1 s for the next token.
    const refused = rejections(BanPolicy.CLEAN, Array(12).fill(T0), T0 + 1_000)
    expect(refused.map((r) => r.banned)).toEqual(Array(12).fill(false))
    expect(refused[11].standing).toEqual({ ...BanPolicy.CLEAN, waitUntil: T0 + 1_000, graceUntil: T0 + 250, strikes: 0 })
  })

  it("a client hammering through a 1 s wait after the grace is still banned, at its 11th request after the grace", () => {
    const first = BanPolicy.onRejected(BanPolicy.CLEAN, T0, 1_000, OPTIONS).standing
    // One request every 50 ms from the end of the grace: 250, 300, ... 750 ms.
    const hammering = rejections(first, Array.from({ length: 11 }, (_, i) => T0 + 250 + 50 * i), T0 + 1_000)
    expect(hammering.map((r) => r.banned)).toEqual([...Array(10).fill(false), true])
    expect(hammering[10].standing).toMatchObject({ bannedUntil: T0 + 750 + 15 * MINUTE, bans: 1, lastBanAt: T0 + 750 })
  })

  for (const graceMillis of [0, 1, 250, 999]) {
    it(`grace ${graceMillis} ms: a request at the grace's last millisecond is no strike, one at its end is`, () => {
      const options = { ...OPTIONS, graceMillis }
      const first = BanPolicy.onRejected(BanPolicy.CLEAN, T0, 1_000, options).standing
      if (graceMillis > 0) expect(BanPolicy.onRejected(first, T0 + graceMillis - 1, 1_000, options).standing.strikes).toBe(0)
      expect(BanPolicy.onRejected(first, T0 + graceMillis, 1_000, options).standing.strikes).toBe(1)
    })
  }

  it("a grace of 0 counts every early request, the one at the first rejection's instant too", () => {
    const options = { ...OPTIONS, graceMillis: 0 }
    const results = rejections(BanPolicy.CLEAN, Array(12).fill(T0), T0 + 1_000, options)
    expect(results.map((r) => r.banned)).toEqual([...Array(11).fill(false), true])
  })

  for (const threshold of [0, 1, 3, 10]) {
    it(`threshold ${threshold}: threshold early requests are tolerated, one more bans`, () => {
      const options = { ...OPTIONS, threshold }
      const tolerated = rejectAndRepeat(BanPolicy.CLEAN, T0, threshold, options)
      expect([tolerated.bannedBefore, tolerated.banned]).toEqual([false, false])
      expect(tolerated.standing.strikes).toBe(threshold)
      const at = T0 + OPTIONS.graceMillis + 1
      const banned = BanPolicy.onRejected(tolerated.standing, at, 1_000, options)
      expect(banned).toEqual({
        banned: true,
        standing: { waitUntil: 0, graceUntil: 0, strikes: 0, bannedUntil: at + 15 * MINUTE, bans: 1, lastBanAt: at }
      })
    })
  }

  it("isBanned until the last millisecond of the ban", () => {
    const standing = banAt(BanPolicy.CLEAN, T0 - OPTIONS.graceMillis)
    expect(BanPolicy.isBanned(standing, T0)).toBe(true)
    expect(BanPolicy.isBanned(standing, T0 + 15 * MINUTE - 1)).toBe(true)
    expect(BanPolicy.isBanned(standing, T0 + 15 * MINUTE)).toBe(false)
  })

  it("an admitted request ends the wait, its grace and its strikes but keeps the ban history", () => {
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
      lengths.push((standing.bannedUntil - standing.lastBanAt) / MINUTE)
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
      // Each offence starts with a rejection a grace before the request that earns the ban.
      const grace = OPTIONS.graceMillis
      const second = banAt(banAt(BanPolicy.CLEAN, T0 - grace), T0 + 15 * MINUTE - grace)
      expect(second.bannedUntil).toBe(T0 + 45 * MINUTE)
      const next = banAt(second, second.bannedUntil + quiet - grace)
      expect(next.bannedUntil - (second.bannedUntil + quiet)).toBe(minutes * MINUTE)
      expect(next.bans).toBe(minutes === 15 ? 1 : 3)
    })
  }

  const arbOptions = fc.record({
    threshold: fc.integer({ min: 0, max: 20 }),
    baseMillis: fc.integer({ min: 1, max: HOUR }),
    maxMillis: fc.integer({ min: 1, max: 48 * HOUR }),
    memoryMillis: fc.integer({ min: 0, max: 48 * HOUR }),
    graceMillis: fc.integer({ min: 0, max: 2_000 })
  })

  prop(
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

  prop(
    "a ban within memoryMillis of the last one's end lasts twice as long (capped at maxMillis), any other lasts baseMillis",
    [arbOptions, fc.array(fc.integer({ min: 0, max: 60 * HOUR }), { minLength: 1, maxLength: 40 })],
    ([options, pauses]) => {
      let standing = BanPolicy.CLEAN
      let now = T0
      let previous = 0
      for (const pause of pauses) {
        now = Math.max(now, standing.bannedUntil) + pause
        const offence = now + options.graceMillis
        const remembered = standing.bans > 0 && offence - standing.bannedUntil < options.memoryMillis
        standing = banAt(standing, now, options)
        const length = standing.bannedUntil - offence
        const expected = remembered ? previous * 2 : options.baseMillis
        expect(length).toBe(Math.min(expected, options.maxMillis))
        previous = length
      }
    }
  )

  prop(
    "any number of rejections within the grace after a wait's first rejection are no strikes and never ban",
    [arbOptions, fc.integer({ min: 1, max: 100_000 }), fc.array(fc.nat(), { maxLength: 60 })],
    ([options, wait, offsets]) => {
      const first = BanPolicy.onRejected(BanPolicy.CLEAN, T0, wait, options).standing
      const inGrace = options.graceMillis === 0 ? [] : ascending(offsets.map((o) => T0 + (o % options.graceMillis)))
      for (const result of rejections(first, inGrace, T0 + wait, options)) {
        expect([result.banned, result.standing.strikes]).toEqual([false, 0])
      }
    }
  )

  prop(
    "threshold + 1 rejections after the grace and before the instant to wait for ban the key, whatever came within the grace",
    [arbOptions, fc.integer({ min: 1, max: 100_000 }), fc.array(fc.nat(), { maxLength: 20 }), fc.array(fc.nat(), { minLength: 21, maxLength: 21 })],
    ([options, extra, inGraceOffsets, earlyOffsets]) => {
      // A wait that outlasts the grace: rejections within the grace, then after it.
      const until = T0 + options.graceMillis + extra
      const inGrace = options.graceMillis === 0 ? [] : ascending(inGraceOffsets.map((o) => T0 + (o % options.graceMillis)))
      const early = ascending(earlyOffsets.slice(0, options.threshold + 1).map((o) => T0 + options.graceMillis + (o % extra)))
      const results = rejections(BanPolicy.CLEAN, [T0, ...inGrace, ...early], until, options)
      expect(results.map((r) => r.banned)).toEqual([...Array(1 + inGrace.length + options.threshold).fill(false), true])
    }
  )

  prop(
    "an admitted request ends whatever part of a wait is left (its instant, grace or strikes) and keeps the ban history",
    [
      fc.record({
        waitUntil: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_000_000_000_000 })),
        graceUntil: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_000_000_000_000 })),
        strikes: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 20 })),
        bannedUntil: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_000_000_000_000 })),
        bans: fc.integer({ min: 0, max: 40 }),
        lastBanAt: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 4_000_000_000_000 }))
      })
    ],
    ([standing]) => {
      const { bannedUntil, bans, lastBanAt } = standing
      expect(BanPolicy.onAdmitted(standing)).toEqual({ waitUntil: 0, graceUntil: 0, strikes: 0, bannedUntil, bans, lastBanAt })
    }
  )
})
