import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { BanPolicy, LimitDecision, TokenBucket } from "@petstore/core"

import type { ResponseHeaders } from "../src/AppResponse.js"
import * as RateLimitHeaders from "../src/internal/rateLimitHeaders.js"

const NOW = 1_700_000_000_000

const decision = (perMinute: number, perDay: number) => {
  const limits = { perMinute, perDay }
  return LimitDecision.decide(limits, LimitDecision.freshUsage(limits, NOW), BanPolicy.CLEAN, NOW, 1, BanPolicy.DEFAULT_OPTIONS)
    .decision
}
const policyOf = (perMinute: number, perDay: number) => {
  const headers: ResponseHeaders = {}
  RateLimitHeaders.write(headers, decision(perMinute, perDay))
  return headers["RateLimit-Policy"]
}
const expected = (perMinute: number, perDay: number) => `"minute";q=${perMinute};w=60, "day";q=${perDay};w=86400`

describe("RateLimitHeaders", () => {
  it("RateLimit-Policy names every limit with its quota and window", () => {
    expect(policyOf(60, 1_000)).toBe(expected(60, 1_000))
    const headers: ResponseHeaders = {}
    RateLimitHeaders.write(headers, LimitDecision.decideAddress(20, TokenBucket.full(20, NOW), NOW).decision)
    expect(headers["RateLimit-Policy"]).toBe(`"minute";q=20;w=60`)
  })

  it("RateLimit-Policy stays right past the texts kept: 2 500 minute quotas, 20 day quotas under one", () => {
    const plans = [
      ...Array.from({ length: 2_500 }, (_, i) => [i + 1, 1_000] as const),
      ...Array.from({ length: 20 }, (_, i) => [60, i + 1] as const)
    ]
    for (let round = 0; round < 2; round++) {
      for (const [perMinute, perDay] of plans) expect(policyOf(perMinute, perDay)).toBe(expected(perMinute, perDay))
    }
  })

  prop("RateLimit-Policy is the text of the decision's own limits, whatever plans came before", [
    fc.array(fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000_000 })), {
      minLength: 1,
      maxLength: 500
    })
  ], ([plans]) => {
    for (const [perMinute, perDay] of plans) expect(policyOf(perMinute, perDay)).toBe(expected(perMinute, perDay))
    for (const [perMinute, perDay] of plans.slice(0, 50)) expect(policyOf(perMinute, perDay)).toBe(expected(perMinute, perDay))
  }, { fastCheck: { numRuns: 20 } })
})
