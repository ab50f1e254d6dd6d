/**
 * The rate-limit fields every response carries (`X-RateLimit-*`, `Retry-After`, and the IETF
 * `RateLimit` and `RateLimit-Policy`): reading them, and checking them against an account's model
 * after a request it admitted or refused.
 */
import type { Expectations } from "./Expectations.js"
import type { HttpExchange } from "./HttpExchange.js"
import type { AccountModel } from "./ModelRecords.js"
import { fail } from "./Violation.js"

/** A header that must be a non-negative integer. */
export const intHeader = (x: HttpExchange, name: string, what: string): number => {
  const raw = x.response.headers[name.toLowerCase()]
  if (raw === undefined) return fail(`${what}: header ${name} is missing (every response carries the rate-limit headers)`)
  if (!/^\d+$/.test(raw.trim())) return fail(`${what}: header ${name} is ${JSON.stringify(raw)}, not a non-negative integer`)
  return Number(raw.trim())
}

/** `"name";k=v;k=v, …` of the IETF RateLimit and RateLimit-Policy fields. */
const parseIetf = (raw: string | undefined): Map<string, Record<string, number>> | undefined => {
  if (raw === undefined) return undefined
  const out = new Map<string, Record<string, number>>()
  for (const item of raw.split(",")) {
    const [name, ...params] = item.trim().split(";")
    if (name === undefined || name === "") continue
    const values: Record<string, number> = {}
    for (const p of params) {
      const [k, v] = p.split("=")
      if (k !== undefined && v !== undefined) values[k.trim()] = Number(v.trim())
    }
    out.set(name.replace(/^"|"$/g, ""), values)
  }
  return out
}

/** The minute and day entries of the IETF fields, by their windows (60 s and 86 400 s). */
const ietf = (x: HttpExchange, what: string) => {
  const policy = parseIetf(x.response.headers["ratelimit-policy"])
  const state = parseIetf(x.response.headers["ratelimit"])
  if (policy === undefined || state === undefined) {
    return fail(`${what}: the RateLimit-Policy and RateLimit fields are missing (they are on every response)`)
  }
  const byWindow = (w: number) => {
    for (const [name, p] of policy) {
      if (p.w === w) {
        const s = state.get(name)
        if (s === undefined || !Number.isInteger(s.r)) return fail(`${what}: RateLimit has no remaining (r) for ${name}`)
        return { quota: p.q!, remaining: s.r! }
      }
    }
    return undefined
  }
  return { minute: byWindow(60), day: byWindow(86_400) }
}

/** Fails unless `X-RateLimit-Reset` lies within `maxAheadSeconds` of the request (give or take the clock skew). */
export const checkReset = (expect: Expectations, x: HttpExchange, what: string, maxAheadSeconds: number) => {
  const reset = intHeader(x, "X-RateLimit-Reset", what)
  const sent = x.wallSentAt / 1000
  const skew = expect.clockSkewSeconds
  if (reset < Math.floor(sent) - skew || reset > sent + maxAheadSeconds + skew + 2) {
    fail(`${what}: X-RateLimit-Reset ${reset} is not within ${maxAheadSeconds} s of the request (epoch ${Math.floor(sent)})`)
  }
}

/** `Retry-After` in seconds, at least 1. */
export const retryAfter = (x: HttpExchange, what: string): number => {
  const ra = intHeader(x, "Retry-After", what)
  if (ra < 1) fail(`${what}: Retry-After ${ra} is below 1`)
  return ra
}

/** After an admitted request: the headers tell the remaining counts; they must fit the model. */
export const observeAllowedHeaders = (
  expect: Expectations,
  account: AccountModel,
  x: HttpExchange,
  what: string,
  s: number,
  r: number
) => {
  const eps = 1e-6
  const { perDay, perMinute } = account.limits
  const limit = intHeader(x, "X-RateLimit-Limit", what)
  const remaining = intHeader(x, "X-RateLimit-Remaining", what)
  const fields = ietf(x, what)
  if (fields.minute === undefined || fields.day === undefined) {
    fail(`${what}: RateLimit-Policy must list a 60 s and an 86400 s limit, got ${x.response.headers["ratelimit-policy"]}`)
  }
  const minute = fields.minute!
  const day = fields.day!
  if (minute.quota !== perMinute || day.quota !== perDay) {
    fail(`${what}: RateLimit-Policy says ${minute.quota}/min and ${day.quota}/day; account ${account.name} has ${perMinute}/min and ${perDay}/day`)
  }
  if (limit !== perMinute && limit !== perDay) {
    fail(`${what}: X-RateLimit-Limit ${limit} is neither the per-minute (${perMinute}) nor the per-day (${perDay}) limit`)
  }
  if (remaining !== Math.min(minute.remaining, day.remaining)) {
    fail(`${what}: X-RateLimit-Remaining ${remaining} is not the fewest remaining (${minute.remaining}/min, ${day.remaining}/day)`)
  }
  const bindingQuota = minute.remaining < day.remaining ? perMinute : day.remaining < minute.remaining ? perDay : undefined
  if (bindingQuota !== undefined && limit !== bindingQuota) {
    fail(`${what}: X-RateLimit-Limit ${limit} is not the limit closest to exhaustion (${bindingQuota})`)
  }
  if (!account.bucket.observeAfter(minute.remaining, minute.remaining + 1, s, r, eps)) {
    fail(
      `${what}: ${minute.remaining} requests left this minute, but account ${account.name}'s bucket must hold ${
        account.bucket.describe(r)
      } tokens after this one (capacity ${perMinute}, refilled continuously)`
    )
  }
  if (account.dayUsed !== undefined && day.remaining !== Math.max(0, perDay - account.dayUsed)) {
    fail(`${what}: ${day.remaining} requests left today, but ${account.dayUsed} of ${perDay} were admitted`)
  }
  account.dayUsed = perDay - day.remaining
  checkReset(expect, x, what, limit === perMinute && bindingQuota !== perDay ? 61 : 86_400 + 1)
}

/** After a 429 for the minute or the day: no requests remain, and the fields are all there. */
export const observeRejectedHeaders = (
  expect: Expectations,
  account: AccountModel,
  x: HttpExchange,
  what: string,
  which: "minute" | "day"
) => {
  const limit = intHeader(x, "X-RateLimit-Limit", what)
  const remaining = intHeader(x, "X-RateLimit-Remaining", what)
  const { perDay, perMinute } = account.limits
  if (limit !== perMinute && limit !== perDay) {
    fail(`${what}: X-RateLimit-Limit ${limit} is neither ${perMinute} nor ${perDay}`)
  }
  if (remaining !== 0) fail(`${what}: a 429 (${which}) with X-RateLimit-Remaining ${remaining}, expected 0`)
  ietf(x, what)
  checkReset(expect, x, what, 86_400 + 1)
}
