/**
 * Requests sent at once with one key (spread over the instances), with the checks that hold under
 * any interleaving: the admitted count fits what the account's bucket could hold over the burst's
 * window; when the bucket certainly held a token for each, every one is admitted; the daily quota
 * is exact; a burst of at most the ban threshold never bans. The model is then updated as if each
 * request were decided anywhere in the window.
 */

import * as fc from "fast-check"
import { errorCode } from "./AnswerRules.js"
import * as BanBounds from "./BanBounds.js"
import { type HttpExchange, now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel } from "./ModelRecords.js"
import type { Session } from "./Session.js"
import { fail } from "./Violation.js"

const EPSILON = 1e-6

/**
 * What a burst sends (default: one page of the listing) and the statuses that mean the limiter
 * admitted a request (default 200).
 */
export interface BurstRequest {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
  readonly admitted: ReadonlyArray<number>
}

/**
 * The requests of one parallel burst, checked together; answers the admitted exchanges (none when
 * the key was not in good standing and nothing was sent).
 *
 * @category checks
 */
export const parallelBurst = async (
  model: Model,
  session: Session,
  key: KeyModel,
  count: number,
  burst?: BurstRequest
): Promise<ReadonlyArray<HttpExchange>> => {
  const at = now()
  // Only a key in good standing: no wait told, no ban, not near its end (its answers must be about limits only).
  if (model.toldToWait(key, at) || key.bannedUntil !== undefined || key.endsAt !== undefined) return []
  const n = Math.min(count, model.expect.banThreshold)
  const path = burst?.path ?? `${session.publicPrefix}/pets?limit=1`
  const method = burst?.method ?? "GET"
  const admittedStatuses = burst?.admitted ?? [200]
  const exchanges = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      session.send(`request ${i + 1} of ${n} sent at once`, {
        method,
        path,
        headers: { ...burst?.headers, Authorization: `Bearer ${key.secret}` },
        body: burst?.body
      })
    )
  )
  const s0 = Math.min(...exchanges.map((x) => x.sentAt)) - model.expect.decisionSlackMs
  const rLast = Math.max(...exchanges.map((x) => x.receivedAt)) + model.expect.decisionSlackMs
  const what = `${n} requests at once with ${key.variable}: ${method} ${path}`
  const account = key.account
  const bucket = account.bucket
  let admitted = 0
  let quotaRefused = 0
  let limited = 0
  let minRetryAfter = Number.POSITIVE_INFINITY
  let maxRetryAfter = 1
  for (const x of exchanges) {
    const status = x.response.status
    if (admittedStatuses.includes(status)) {
      admitted++
      continue
    }
    if (status !== 429) fail(`${what}: one answered ${status}; expected ${admittedStatuses.join(", ")} or 429 (${x.response.text.slice(0, 200)})`)
    const code = errorCode(x)
    if (code === "key_banned") fail(`${what}: key_banned, but the key sent at most ${n} requests, none while told to wait`)
    if (code === "daily_quota_exceeded") quotaRefused++
    else limited++
    const ra = Number(x.response.headers["retry-after"])
    if (!Number.isInteger(ra) || ra < 1) fail(`${what}: a 429 with Retry-After ${JSON.stringify(x.response.headers["retry-after"])}`)
    minRetryAfter = Math.min(minRetryAfter, ra)
    maxRetryAfter = Math.max(maxRetryAfter, ra)
  }

  // At most what the bucket could hold over the window, refill included.
  const most = bucket.upper(s0) + bucket.rate * (rLast - s0)
  if (admitted > most + EPSILON) {
    fail(`${what}: ${admitted} admitted, but account ${account.name}'s bucket held at most ${most.toFixed(3)} tokens over the burst (${bucket.describe(s0)})`)
  }
  const dayUsed = account.dayUsed
  const perDay = account.limits.perDay
  if (dayUsed !== undefined) {
    if (dayUsed + admitted > perDay) fail(`${what}: ${admitted} admitted with ${dayUsed} of ${perDay} already used today`)
    if (quotaRefused > 0 && dayUsed + admitted < perDay) {
      fail(`${what}: daily_quota_exceeded with ${dayUsed + admitted} of ${perDay} used today (the quota is exact)`)
    }
    if (bucket.lower(s0) >= n + EPSILON && dayUsed + n <= perDay && admitted < n) {
      fail(`${what}: ${n - admitted} refused although account ${account.name}'s bucket held at least ${bucket.lower(s0).toFixed(3)} tokens (${n} needed)`)
    }
  }

  // The model after the burst: each request decided anywhere in [s0, rLast].
  for (let i = 0; i < admitted; i++) bucket.take(s0, rLast)
  if (limited > 0) bucket.refused(s0)
  if (dayUsed !== undefined) account.dayUsed = quotaRefused > 0 ? perDay : dayUsed + admitted
  if (limited + quotaRefused > 0) {
    const strikes = BanBounds.strikesIfRefused(key, s0, rLast)
    BanBounds.refused(key, strikes, s0, rLast, minRetryAfter, model.expect.banGraceMs, model.expect.banThreshold)
    key.waitUntil.hi = Math.max(key.waitUntil.hi, rLast + maxRetryAfter * 1000)
    // An admission may have come after the refusals: the key may not be told to wait at all.
    if (admitted > 0) key.waitUntil = { lo: 0, hi: key.waitUntil.hi }
  } else {
    Object.assign(key, BanBounds.none())
  }
  return exchanges.filter((x) => admittedStatuses.includes(x.response.status))
}

/** How many requests a parallel burst sends. @category arbitraries */
export const parallelBurstSize: fc.Arbitrary<number> = fc.integer({ min: 2, max: 10 })
