import { describe, expect, it } from "@effect/vitest"
import * as AddressLimit from "../src/AddressLimit.js"

describe("AddressLimit", () => {
  it("admits perMinute at once from an address, then tells the whole seconds until the next (at least 1)", () => {
    const limit = AddressLimit.make(3, 100)
    const now = 1_000_000
    expect([limit.take("a", now), limit.take("a", now), limit.take("a", now)]).toEqual([undefined, undefined, undefined])
    expect(limit.take("a", now)).toBe(20)
    expect(limit.take("b", now)).toBeUndefined()
    expect(limit.take("a", now + 19_999)).toBe(1)
    expect(limit.take("a", now + 20_000)).toBeUndefined()
  })

  it("a refusal takes nothing, and its decision says rate_limited with the wait", () => {
    const limit = AddressLimit.make(1, 100)
    expect(limit.decide("a", 0).verdict).toBe("allowed")
    const refused = limit.decide("a", 0)
    expect(refused).toMatchObject({ verdict: "rate_limited", retryAfterMillis: 60_000 })
    expect(limit.decide("a", 30_000).retryAfterMillis).toBe(30_000)
  })

  it("keeps at most `kept` addresses: a new one at a full record starts it over (allowances back early)", () => {
    const limit = AddressLimit.make(1, 2)
    limit.take("a", 0)
    limit.take("b", 0)
    expect(limit.take("a", 0)).toBe(60)
    limit.take("c", 0)
    expect(limit.take("a", 0)).toBeUndefined()
  })

  it("forgetting the full buckets changes no decision", () => {
    const limit = AddressLimit.make(2, 100)
    limit.take("a", 0)
    limit.forgetFull(60_000)
    expect([limit.take("a", 60_000), limit.take("a", 60_000), limit.take("a", 60_000)]).toEqual([undefined, undefined, 30])
  })
})
