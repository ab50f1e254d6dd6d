import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Plan from "../src/Plan.js"

describe("Plan", () => {
  it("the standard plans have the interface's numbers", () => {
    expect(Plan.STANDARD_LIMITS).toEqual({
      free: { perMinute: 60, perDay: 1_000 },
      pro: { perMinute: 300, perDay: 10_000 },
      business: { perMinute: 1_000, perDay: 100_000 }
    })
  })

  it("the plans are free, pro, business and enterprise", () => {
    for (const p of ["free", "pro", "business", "enterprise"]) expect(Schema.is(Plan.Plan)(p)).toBe(true)
    expect(Schema.is(Plan.Plan)("gold")).toBe(false)
  })

  it("a standard plan means its published numbers and refuses custom limits", () => {
    for (const plan of ["free", "pro", "business"] as const) {
      expect(Plan.limitsFor(plan)).toEqual(Result.succeed(Plan.STANDARD_LIMITS[plan]))
      const custom = Plan.limitsFor(plan, { perMinute: 5, perDay: 5 })
      expect(Result.isFailure(custom) && custom.failure.reason).toBe(
        `limits can only be set for enterprise accounts; ${plan} has fixed limits`
      )
    }
  })

  it("enterprise needs its own numbers, positive integers in range", () => {
    expect(Plan.limitsFor("enterprise", { perMinute: 7, perDay: 70 })).toEqual(Result.succeed({ perMinute: 7, perDay: 70 }))
    const noLimits = Plan.limitsFor("enterprise")
    expect(Result.isFailure(noLimits) && noLimits.failure.reason).toBe("enterprise accounts need limits")
    for (const bad of [
      { perMinute: 0, perDay: 10 },
      { perMinute: 10, perDay: 0 },
      { perMinute: 1.5, perDay: 10 },
      { perMinute: 1_000_001, perDay: 10 },
      { perMinute: 10, perDay: 1_000_000_001 }
    ]) {
      const result = Plan.limitsFor("enterprise", bad)
      expect(Result.isFailure(result) && result.failure.reason).toBe("limits must be positive integers")
    }
    expect(Plan.limitsFor("enterprise", { perMinute: 1_000_000, perDay: 1_000_000_000 })).toEqual(
      Result.succeed({ perMinute: 1_000_000, perDay: 1_000_000_000 })
    )
    expect(Plan.limitsFor("enterprise", { perMinute: 1, perDay: 1 })).toEqual(Result.succeed({ perMinute: 1, perDay: 1 }))
  })

  it("limitsFor copies the numbers (no extra fields leak into the account)", () => {
    const custom = { perMinute: 3, perDay: 4, extra: 1 } as unknown as Plan.PlanLimits
    expect(Plan.limitsFor("enterprise", custom)).toEqual(Result.succeed({ perMinute: 3, perDay: 4 }))
  })
})
