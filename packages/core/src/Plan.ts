/**
 * Plans and their request limits.
 *
 * @since 1.0.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { InvalidPlan } from "./Errors.js"

/** An account's plan. @category schemas */
export const Plan = Schema.Literals(["free", "pro", "business", "enterprise"]).annotate({ identifier: "Plan" })
/** An account's plan, decoded. */
export type Plan = typeof Plan.Type

/** Requests per minute (token-bucket capacity and refill per 60 s) and per UTC day. */
export interface PlanLimits {
  readonly perMinute: number
  readonly perDay: number
}

/** The limits of a plan, as a schema. @category schemas */
export const PlanLimits = Schema.Struct({
  perMinute: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
  perDay: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 }))
}).annotate({ identifier: "PlanLimits" })

/** The interface's numbers. Enterprise has no standard numbers: each account carries its own. */
export const STANDARD_LIMITS: { readonly [P in Exclude<Plan, "enterprise">]: PlanLimits } = {
  free: { perMinute: 60, perDay: 1_000 },
  pro: { perMinute: 300, perDay: 10_000 },
  business: { perMinute: 1_000, perDay: 100_000 }
}

/**
 * The limits an account on `plan` gets. Enterprise needs `custom`; the standard plans refuse it, so
 * an account's plan always means the published numbers and a caller never silently loses limits.
 *
 * @category constructors
 */
export const limitsFor = (plan: Plan, custom?: PlanLimits): Result.Result<PlanLimits, InvalidPlan> => {
  if (plan !== "enterprise") {
    return custom === undefined
      ? Result.succeed(STANDARD_LIMITS[plan])
      : Result.fail(new InvalidPlan({ reason: `limits can only be set for enterprise accounts; ${plan} has fixed limits` }))
  }
  if (custom === undefined) return Result.fail(new InvalidPlan({ reason: "enterprise accounts need limits" }))
  if (!Schema.is(PlanLimits)(custom)) {
    return Result.fail(new InvalidPlan({ reason: "limits must be positive integers" }))
  }
  return Result.succeed({ perMinute: custom.perMinute, perDay: custom.perDay })
}
