/**
 * Plans and their request limits.
 *
 * @since 1.0.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidPlan } from "./Errors.js"

/** @category schemas */
export const Plan = Schema.Literal("free", "pro", "business", "enterprise").annotations({ identifier: "Plan" })
export type Plan = typeof Plan.Type

/** Requests per minute (token-bucket capacity and refill per 60 s) and per UTC day. */
export interface PlanLimits {
  readonly perMinute: number
  readonly perDay: number
}

/** @category schemas */
export const PlanLimits = Schema.Struct({
  perMinute: Schema.Int.pipe(Schema.between(1, 1_000_000)),
  perDay: Schema.Int.pipe(Schema.between(1, 1_000_000_000))
}).annotations({ identifier: "PlanLimits" })

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
export const limitsFor = (plan: Plan, custom?: PlanLimits): Either.Either<PlanLimits, InvalidPlan> => {
  if (plan !== "enterprise") {
    return custom === undefined
      ? Either.right(STANDARD_LIMITS[plan])
      : Either.left(new InvalidPlan({ reason: `limits can only be set for enterprise accounts; ${plan} has fixed limits` }))
  }
  if (custom === undefined) return Either.left(new InvalidPlan({ reason: "enterprise accounts need limits" }))
  if (!Schema.is(PlanLimits)(custom)) {
    return Either.left(new InvalidPlan({ reason: "limits must be positive integers" }))
  }
  return Either.right({ perMinute: custom.perMinute, perDay: custom.perDay })
}
