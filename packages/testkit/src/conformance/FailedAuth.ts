/**
 * Authentication that fails: a request with a missing or invalid key draws on its client address's
 * bucket, answered 401 while the address has tokens and 429 when it has none.
 */
import { decisionWindow, type Expectations } from "./Expectations.js"
import type { HttpExchange } from "./HttpExchange.js"
import { checkReset, intHeader, retryAfter } from "./RateLimitHeaders.js"
import type { TokenBounds } from "./TokenBounds.js"
import { fail } from "./Violation.js"

/** What the checks of a failed authentication read and update of the checker's model. */
export interface FailedAuthState {
  readonly expect: Expectations
  /** The client address's bucket for failed authentication. */
  readonly addressBucket: TokenBounds
  failedAuthSent: number
}

/**
 * A request with a missing or invalid key: 401 with `WWW-Authenticate: Bearer` while the address
 * has tokens, 429 when it has none. Checks the answer and updates the model's address bucket.
 */
export const checkFailedAuth = (model: FailedAuthState, x: HttpExchange, what: string): void => {
  const { r, s } = decisionWindow(model.expect, x)
  const eps = 1e-6
  const bucket = model.addressBucket
  const status = x.response.status
  model.failedAuthSent++
  if (status !== 401 && status !== 429) {
    fail(`${what}: expected 401 (missing or invalid key) but got ${status}: authentication was not enforced`)
  }
  const limit = intHeader(x, "X-RateLimit-Limit", what)
  if (limit !== bucket.capacity) {
    fail(`${what}: X-RateLimit-Limit ${limit}, expected the failed-authentication limit ${bucket.capacity} of this address`)
  }
  const remaining = intHeader(x, "X-RateLimit-Remaining", what)
  checkReset(model.expect, x, what, 61)
  if (status === 401) {
    const challenge = x.response.headers["www-authenticate"]
    if (challenge === undefined || !/^bearer\b/i.test(challenge.trim())) {
      fail(`${what}: a 401 without \`WWW-Authenticate: Bearer\` (got ${JSON.stringify(challenge)})`)
    }
    if (bucket.mustRefuse(s, r, eps)) {
      fail(`${what}: 401 although this address's failed-authentication bucket must be empty (${bucket.describe(r)}): expected 429`)
    }
    bucket.take(s, r)
    if (!bucket.observeAfter(remaining, remaining + 1, s, r, eps)) {
      fail(`${what}: X-RateLimit-Remaining ${remaining} contradicts the address bucket ${bucket.describe(r)} after one failure`)
    }
    return
  }
  // 429: the address bucket is empty.
  if (bucket.calibrated && bucket.mustAdmit(s, r, eps)) {
    fail(`${what}: 429 although this address has failed-authentication tokens left (${bucket.describe(s)})`)
  }
  retryAfter(x, what)
  if (remaining !== 0) fail(`${what}: 429 with X-RateLimit-Remaining ${remaining}, expected 0`)
  bucket.refused(s)
  bucket.observeAfter(0, 1, s, r, eps)
}
