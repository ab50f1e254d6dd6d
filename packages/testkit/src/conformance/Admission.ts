/**
 * The rate-limit step of an authenticated request: was the answer (admitted, `rate_limited`,
 * `daily_quota_exceeded` or `key_banned`) one that some state within the model's bounds explains?
 * Checks it against the account's token bucket, its daily quota and the key's ban standing, then
 * updates them.
 *
 * @since 1.0.0
 */
import { errorCode } from "./AnswerRules.js"
import * as BanBounds from "./BanBounds.js"
import { decisionWindow } from "./Expectations.js"
import type { HttpExchange } from "./HttpExchange.js"
import { type FailedAuthState, checkFailedAuth } from "./FailedAuth.js"
import { type AccountModel, type KeyModel, keyAuth, utcDay } from "./ModelRecords.js"
import { checkReset, intHeader, observeAllowedHeaders, observeRejectedHeaders, retryAfter } from "./RateLimitHeaders.js"
import { fail } from "./Violation.js"

/** The outcome of the rate-limit step for an authenticated request. */
export type Admission = "allowed" | "rate_limited" | "daily_quota_exceeded" | "key_banned"

/** What the model knew of a request's key and account when the request was decided. */
interface Standing {
  readonly expect: FailedAuthState["expect"]
  readonly key: KeyModel
  readonly account: AccountModel
  readonly x: HttpExchange
  readonly what: string
  readonly status: number
  readonly s: number
  readonly r: number
  readonly wallDay: number
  readonly perDay: number
  readonly quotaOk: boolean | undefined
  readonly banned: boolean
  readonly certainlyBanned: boolean
  /** The key's strikes if this request is refused. */
  readonly strikes: BanBounds.Count
  readonly threshold: number
  readonly mustAdmitBucket: boolean
  readonly mayAdmitBucket: boolean
  readonly explain: () => string
}

const EPS = 1e-6

/**
 * Checks the rate-limit step of a request made with `key` and updates the model. Returns what the
 * server decided (a 401 when the key may have ended is handled as a failed authentication).
 */
export const checkAdmission = (
  model: FailedAuthState,
  key: KeyModel,
  x: HttpExchange,
  what: string
): Admission | "unauthorized" => {
  const { r, s } = decisionWindow(model.expect, x)
  if (refusedAuthentication(model, key, x, what, s, r)) return "unauthorized"
  const standing = standingOf(model.expect, key, x, what, s, r)
  switch (answeredOutcome(x, what)) {
    case "allowed":
      return checkAllowed(standing)
    case "rate_limited":
      return checkRateLimited(standing)
    case "daily_quota_exceeded":
      return checkQuotaExceeded(standing)
    case "key_banned":
      return checkKeyBanned(standing)
  }
}

/** A 401, or a 429 for a key that has ended: a failed authentication, checked as one. */
const refusedAuthentication = (model: FailedAuthState, key: KeyModel, x: HttpExchange, what: string, s: number, r: number): boolean => {
  const status = x.response.status
  const auth = keyAuth(key, s, r)
  if (status === 401) {
    if (auth === "valid") fail(`${what}: 401 for key ${key.variable}, which is valid (a valid key was refused)`)
    checkFailedAuth(model, x, what)
    return true
  }
  if (auth === "invalid") {
    if (status === 429 && x.response.text.includes("rate_limited")) {
      checkFailedAuth(model, x, what)
      return true
    }
    fail(`${what}: key ${key.variable} was revoked or has expired, but the answer is ${status}, not 401 (auth ignored)`)
  }
  return false
}

/** The key's and account's standing at the request, the account's day turned over when the date changed. */
const standingOf = (expect: FailedAuthState["expect"], key: KeyModel, x: HttpExchange, what: string, s: number, r: number): Standing => {
  const account = key.account
  const bucket = account.bucket
  const wallDay = utcDay(x.wallSentAt)
  if (wallDay !== account.day) {
    account.day = wallDay
    account.dayUsed = undefined
  }
  const perDay = account.limits.perDay
  const strikes = BanBounds.strikesIfRefused(key, s, r)
  return {
    expect,
    key,
    account,
    x,
    what,
    status: x.response.status,
    s,
    r,
    wallDay,
    perDay,
    quotaOk: account.dayUsed === undefined ? undefined : account.dayUsed + 1 <= perDay,
    banned: key.bannedUntil !== undefined && s < key.bannedUntil.hi,
    certainlyBanned: key.bannedUntil !== undefined && r < key.bannedUntil.lo,
    strikes,
    threshold: expect.banThreshold,
    mustAdmitBucket: bucket.mustAdmit(s, r, EPS),
    mayAdmitBucket: !bucket.mustRefuse(s, r, EPS),
    explain: () =>
      `bucket ${bucket.describe(s)} tokens, day ${account.dayUsed ?? "?"}/${perDay} used, strikes ${strikes.min}..${strikes.max}`
  }
}

/** What the server answered: admitted, or the code of its 429. */
const answeredOutcome = (x: HttpExchange, what: string): Admission => {
  if (x.response.status !== 429) return "allowed"
  const code = errorCode(x)
  if (code !== "rate_limited" && code !== "daily_quota_exceeded" && code !== "key_banned") {
    fail(`${what}: 429 with code ${JSON.stringify(code)}; expected rate_limited, daily_quota_exceeded or key_banned`)
  }
  return code as Admission
}

const checkAllowed = ({ account, certainlyBanned, expect, explain, key, mayAdmitBucket, perDay, quotaOk, r, s, status, what, x }: Standing): Admission => {
  if (certainlyBanned) fail(`${what}: key ${key.variable} is banned, but the request was admitted (${status})`)
  if (!mayAdmitBucket) {
    fail(`${what}: admitted (${status}) although account ${account.name}'s bucket must be empty (${explain()}): expected 429`)
  }
  if (quotaOk === false) fail(`${what}: admitted although the daily quota of ${perDay} is used up: expected 429`)
  account.bucket.take(s, r)
  if (account.dayUsed !== undefined) account.dayUsed++
  Object.assign(key, BanBounds.none())
  if (key.bannedUntil !== undefined) key.bannedUntil = undefined
  observeAllowedHeaders(expect, account, x, what, s, r)
  return "allowed"
}

const checkRateLimited = (standing: Standing): Admission => {
  const { account, banned, certainlyBanned, expect, explain, key, mustAdmitBucket, quotaOk, r, s, strikes, threshold, what, x } = standing
  const bucket = account.bucket
  if (certainlyBanned) fail(`${what}: key ${key.variable} is banned: expected code key_banned, got rate_limited`)
  if (mustAdmitBucket && quotaOk === true && !banned && strikes.min <= threshold) {
    fail(`${what}: 429 rate_limited although account ${account.name} must have a token (${explain()})`)
  }
  if (quotaOk === false) fail(`${what}: the daily quota is used up: expected code daily_quota_exceeded, got rate_limited`)
  if (strikes.min > threshold) {
    fail(`${what}: key ${key.variable} sent ${strikes.min} requests after the grace while told to wait: expected a ban (key_banned)`)
  }
  const ra = retryAfter(x, what)
  // Retry-After is the wait for one token, rounded up to whole seconds.
  const tokensMin = 1 - ra * 1000 * bucket.rate - 2 * bucket.rate
  const tokensMax = ra === 1 ? 1 : 1 - (ra - 1) * 1000 * bucket.rate + 2 * bucket.rate
  if (!bucket.observeAfter(Math.max(0, tokensMin), Math.min(1, tokensMax), s, r, EPS)) {
    fail(`${what}: Retry-After ${ra} s does not fit account ${account.name}'s bucket (${explain()}, refill ${bucket.rate * 1000} tokens/s)`)
  }
  bucket.refused(s)
  BanBounds.refused(key, strikes, s, r, ra, expect.banGraceMs, threshold)
  observeRejectedHeaders(expect, account, x, what, "minute")
  return "rate_limited"
}

const checkQuotaExceeded = (standing: Standing): Admission => {
  const { account, certainlyBanned, expect, key, perDay, quotaOk, r, s, strikes, threshold, wallDay, what, x } = standing
  if (certainlyBanned) fail(`${what}: key ${key.variable} is banned: expected code key_banned, got daily_quota_exceeded`)
  if (quotaOk === true) {
    fail(`${what}: daily_quota_exceeded after ${account.dayUsed} of ${perDay} requests today`)
  }
  if (strikes.min > threshold) {
    fail(`${what}: key ${key.variable} sent ${strikes.min} requests after the grace while told to wait: expected a ban (key_banned)`)
  }
  const ra = retryAfter(x, what)
  const toMidnight = (wallDay + 1) * 86_400 - x.wallSentAt / 1000
  if (ra < toMidnight - expect.clockSkewSeconds - 1) {
    fail(`${what}: daily quota exhausted, but Retry-After ${ra} s is before 00:00 UTC (${Math.ceil(toMidnight)} s away)`)
  }
  account.dayUsed = perDay
  account.bucket.refused(s)
  BanBounds.refused(key, strikes, s, r, ra, expect.banGraceMs, threshold)
  observeRejectedHeaders(expect, account, x, what, "day")
  return "daily_quota_exceeded"
}

const checkKeyBanned = ({ account, banned, expect, key, mustAdmitBucket, quotaOk, r, s, strikes, threshold, what, x }: Standing): Admission => {
  if (!banned && strikes.max <= threshold) {
    fail(
      `${what}: key_banned, but key ${key.variable} sent at most ${strikes.max} early requests after the grace while told to wait (ban after more than ${threshold})`
    )
  }
  if (!banned && mustAdmitBucket && quotaOk === true) {
    fail(`${what}: key_banned although account ${account.name} had a token (a ban comes only from requests that are refused)`)
  }
  const ra = retryAfter(x, what)
  if (!banned) {
    key.bans++
    if (key.bans === 1 && Math.abs(ra - expect.banSeconds) > 1) {
      fail(`${what}: a first ban of ${ra} s; expected ${expect.banSeconds} s`)
    }
    key.bannedUntil = { lo: s + (ra - 1) * 1000, hi: r + ra * 1000 }
  } else if (key.bannedUntil !== undefined && (s + ra * 1000 < key.bannedUntil.lo - 1000 || r + (ra - 1) * 1000 > key.bannedUntil.hi + 1000)) {
    fail(`${what}: Retry-After ${ra} s does not match the rest of the ban`)
  }
  Object.assign(key, BanBounds.none())
  const remaining = intHeader(x, "X-RateLimit-Remaining", what)
  if (remaining !== 0) fail(`${what}: a banned key with X-RateLimit-Remaining ${remaining}, expected 0`)
  checkReset(expect, x, what, 86_400 + 1)
  return "key_banned"
}
