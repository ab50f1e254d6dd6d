import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { liveSecrets, MAX_SIGNING_SECRETS, rotated, signingSecrets, type WebhookEndpoint } from "../src/WebhookEndpoint.js"

const HOUR = 3_600_000

const endpoint = (secrets: WebhookEndpoint["secrets"]): WebhookEndpoint => ({
  accountId: "acc_1",
  url: "https://receiver.example/hooks",
  secrets,
  createdAt: 0,
  updatedAt: 0,
  failingSince: null,
  disabledAt: null,
  disabledReason: null
})

/** A sequence of rotations: each after `gap` ms with `grace` ms of grace (0 about a third of the time). */
const rotationsArb = fc.array(
  fc.record({ gap: fc.integer({ min: 0, max: 10 * 24 * HOUR }), grace: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 7 * 24 * HOUR })) }),
  { minLength: 1, maxLength: 40 }
)

describe("WebhookEndpoint rotation", () => {
  it("after any rotations at most two secrets sign: the newest, and the one before it while its grace runs", () => {
    fc.assert(fc.property(rotationsArb, fc.integer({ min: 0, max: 8 * 24 * HOUR }), (rotations, later) => {
      let e = endpoint([{ secret: "s0", expiresAt: null }])
      let now = 1_000_000
      let last = { grace: 0, at: now }
      rotations.forEach(({ gap, grace }, i) => {
        now += gap
        e = rotated(e, `s${i + 1}`, now, grace)
        last = { grace, at: now }
      })
      const n = rotations.length
      expect(e.secrets.length).toBeLessThanOrEqual(MAX_SIGNING_SECRETS)
      for (const at of [now, now + later]) {
        const live = liveSecrets(e, at)
        const previousLive = last.grace > 0 && at < last.at + last.grace
        expect(live).toEqual(previousLive ? [`s${n}`, `s${n - 1}`] : [`s${n}`])
      }
    }))
  })

  it("a rotation with grace 0 retires every earlier secret at once, whatever grace they had left", () => {
    let e = endpoint([{ secret: "s0", expiresAt: null }])
    for (let i = 1; i <= 20; i++) e = rotated(e, `s${i}`, i * HOUR, 7 * 24 * HOUR)
    expect(liveSecrets(e, 20 * HOUR)).toEqual(["s20", "s19"])
    e = rotated(e, "s21", 21 * HOUR, 0)
    expect(e.secrets).toEqual([{ secret: "s21", expiresAt: null }])
    expect(liveSecrets(e, 21 * HOUR)).toEqual(["s21"])
  })

  it("an endpoint stored with more live secrets signs with the newest two only", () => {
    const e = endpoint([
      { secret: "a", expiresAt: null },
      { secret: "b", expiresAt: 5 * HOUR },
      { secret: "c", expiresAt: 9 * HOUR },
      { secret: "d", expiresAt: 1 }
    ])
    expect(liveSecrets(e, 2 * HOUR)).toEqual(["a", "b"])
    expect(signingSecrets(e, 6 * HOUR).map((s) => s.secret)).toEqual(["a", "c"])
  })
})
