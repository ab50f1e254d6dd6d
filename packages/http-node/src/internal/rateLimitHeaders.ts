/**
 * The one header writer for rate limits: `X-RateLimit-*` of the limit closest to exhaustion, the
 * IETF `RateLimit-Policy` and `RateLimit` fields for every limit, and `Retry-After` on rejections.
 */
import { BoundedCache, type LimitDecision } from "@petstore/core"
import type { ResponseHeaders } from "../AppResponse.js"

// `RateLimit-Policy` texts, one cache level per limit, so a text is found with one lookup per limit
// and no key is built per response (a flat cache under a string key was slower: docs/performance.md). Invalidation:
// none needed. The text is a pure function of the limits' names and quotas (the window follows from
// the name), so a kept text is always right. Each level starts over when full: at most 1 024 first
// limits (minute quotas), each followed by at most 8 day quotas; beyond, texts are only built again.
interface PolicyNode {
  text: string | undefined
  readonly next: BoundedCache.BoundedCache<number, PolicyNode>
}
const policyNode = (capacity: number): PolicyNode => ({ text: undefined, next: BoundedCache.make(capacity) })
const policies = policyNode(1024)

const policy = (limits: ReadonlyArray<LimitDecision.LimitStatus>): string => {
  let node = policies
  for (const l of limits) {
    const id = l.quota * 2 + (l.name === "day" ? 1 : 0)
    let child = node.next.get(id)
    if (child === undefined) {
      child = policyNode(8)
      node.next.set(id, child)
    }
    node = child
  }
  return node.text ??= limits.map((l) => `"${l.name}";q=${l.quota};w=${l.windowSeconds}`).join(", ")
}

/** Seconds, rounded up, never below `min`. */
const seconds = (millis: number, min: number): number => Math.max(min, Math.ceil(millis / 1000))

/**
 * Writes the rate-limit headers of `decision` into `headers`. Relative times are taken from the
 * instant the decision was made at, so instances sharing a limiter tell the same story.
 */
export const write = (headers: ResponseHeaders, decision: LimitDecision.Decision): void => {
  const now = decision.at
  const binding = decision.binding
  headers["X-RateLimit-Limit"] = String(binding.quota)
  headers["X-RateLimit-Remaining"] = String(binding.remaining)
  headers["X-RateLimit-Reset"] = String(Math.ceil(binding.fullAt / 1000))
  headers["RateLimit-Policy"] = policy(decision.limits)
  let state = ""
  for (const l of decision.limits) {
    if (state !== "") state += ", "
    state += `"${l.name}";r=${l.remaining};t=${seconds(l.fullAt - now, 0)}`
  }
  headers["RateLimit"] = state
  if (decision.verdict !== "allowed") headers["Retry-After"] = String(seconds(decision.retryAfterMillis, 1))
}
