/**
 * Outcomes counted where the core reports them through its ports: the rate limiter's verdicts
 * (`petstore_rate_limit_decisions_total`) and the message worker's delivery outcomes
 * (`petstore_message_deliveries_total`, from the store calls that record them). The composition
 * root applies these, so the core stays free of metrics.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import { type LimitDecision, type MessageStore, type RateLimiter } from "@petstore/core"
import type { DeliveryOutcome, Metrics, Verdict } from "./Metrics.js"

const FAILED_AUTH_VERDICT: Record<LimitDecision.Verdict, Verdict> = {
  allowed: "unauthenticated",
  rate_limited: "unauthenticated_limited",
  daily_quota_exceeded: "unauthenticated_limited",
  key_banned: "unauthenticated_limited"
}

/** `limiter` with every decision counted by verdict; a failed authentication counts as `unauthenticated` or `unauthenticated_limited`. */
export const countVerdicts = (limiter: RateLimiter.RateLimiter["Service"], metrics: Metrics): RateLimiter.RateLimiter["Service"] => {
  // Made once: no closure per request.
  const keyed = (decision: LimitDecision.Decision) => metrics.verdict(decision.verdict)
  const failedAuth = (decision: LimitDecision.Decision) => metrics.verdict(FAILED_AUTH_VERDICT[decision.verdict])
  return {
    ...limiter,
    admit: (subject) => Effect.tap(limiter.admit(subject), (value) => Effect.sync(() => (keyed)(value))),
    admitFailedAuth: (address) => Effect.tap(limiter.admitFailedAuth(address), (value) => Effect.sync(() => (failedAuth)(value)))
  }
}

/** `store` with each processing outcome the worker records counted once it is stored. */
export const countDeliveries = (store: MessageStore.MessageStore["Service"], metrics: Metrics): MessageStore.MessageStore["Service"] => {
  const counted = (outcome: DeliveryOutcome) => () => metrics.delivery(outcome)
  const delivered = counted("delivered")
  const retried = counted("retried")
  const failed = counted("failed")
  return {
    ...store,
    markDelivered: (claim, now) => Effect.tap(store.markDelivered(claim, now), () => Effect.sync(delivered)),
    markRetry: (claim, now, availableAt, error) =>
      Effect.tap(store.markRetry(claim, now, availableAt, error), () => Effect.sync(retried)),
    markFailed: (claim, now, error) => Effect.tap(store.markFailed(claim, now, error), () => Effect.sync(failed))
  }
}
