/**
 * The one header writer for rate limits: `X-RateLimit-*` of the limit closest to exhaustion, the
 * IETF `RateLimit-Policy` and `RateLimit` fields for every limit, and `Retry-After` on rejections.
 *
 * @since 1.0.0
 */
import type { LimitDecision } from "@petstore/core"
import type { ResponseHeaders } from "./AppResponse.js"

// The policy text depends only on the limits (name and quota; the window follows from the name),
// so it is built once per plan shape, found one map level per limit without building a key.
interface PolicyNode {
  text?: string
  readonly next: Map<number, PolicyNode>
}
const policies: PolicyNode = { next: new Map() }
let policiesKept = 0

const policy = (limits: ReadonlyArray<LimitDecision.LimitStatus>): string => {
  let node = policies
  for (const l of limits) {
    const id = l.quota * 2 + (l.name === "day" ? 1 : 0)
    let child = node.next.get(id)
    if (child === undefined) {
      if (policiesKept >= 10_000) {
        policies.next.clear()
        policiesKept = 0
        return policy(limits)
      }
      child = { next: new Map() }
      node.next.set(id, child)
    }
    node = child
  }
  if (node.text === undefined) {
    node.text = limits.map((l) => `"${l.name}";q=${l.quota};w=${l.windowSeconds}`).join(", ")
    policiesKept++
  }
  return node.text
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
