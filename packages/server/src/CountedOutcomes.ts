/**
 * Outcomes counted where the core reports them through its ports: the rate limiter's verdicts
 * (`petstore_rate_limit_decisions_total`) and the message worker's delivery outcomes
 * (`petstore_message_deliveries_total`, from the store calls that record them). The composition
 * root applies these, so the core stays free of metrics.
 *
 * @since 1.0.0
 */
import { type LimitDecision, type MessageStore, type RateLimiter, Sync } from "@petstore/core"
import type { DeliveryOutcome, Metrics, Verdict } from "./Metrics.js"

const FAILED_AUTH_VERDICT: Record<LimitDecision.Verdict, Verdict> = {
  allowed: "unauthenticated",
  rate_limited: "unauthenticated_limited",
  daily_quota_exceeded: "unauthenticated_limited",
  key_banned: "unauthenticated_limited"
}

/** `limiter` with every decision counted by verdict; a failed authentication counts as `unauthenticated` or `unauthenticated_limited`. */
export const countVerdicts = (limiter: RateLimiter.RateLimiter["Type"], metrics: Metrics): RateLimiter.RateLimiter["Type"] => {
  // Made once: no closure per request.
  const keyed = (decision: LimitDecision.Decision) => metrics.verdict(decision.verdict)
  const failedAuth = (decision: LimitDecision.Decision) => metrics.verdict(FAILED_AUTH_VERDICT[decision.verdict])
  return {
    ...limiter,
    admit: (subject) => Sync.tap(limiter.admit(subject), keyed),
    admitFailedAuth: (address) => Sync.tap(limiter.admitFailedAuth(address), failedAuth)
  }
}

/** `store` with each processing outcome the worker records counted once it is stored. */
export const countDeliveries = (store: MessageStore.MessageStore["Type"], metrics: Metrics): MessageStore.MessageStore["Type"] => {
  const counted = (outcome: DeliveryOutcome) => () => metrics.delivery(outcome)
  const delivered = counted("delivered")
  const retried = counted("retried")
  const failed = counted("failed")
  return {
    ...store,
    markDelivered: (id, now) => Sync.tap(store.markDelivered(id, now), delivered),
    markRetry: (id, now, availableAt, error) => Sync.tap(store.markRetry(id, now, availableAt, error), retried),
    markFailed: (id, now, error) => Sync.tap(store.markFailed(id, now, error), failed)
  }
}
