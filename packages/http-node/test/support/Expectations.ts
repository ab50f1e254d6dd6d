/**
 * Assertions on the wire format shared by the HTTP tests: the Error body, the 401 challenge and the
 * rate-limit headers. Each one fails with the response text, so a failure says what was sent.
 */
import { expect } from "@effect/vitest"
import type { Reply } from "./TestServer.js"

/** The reply has `status`, or the test fails showing the body. */
export const expectStatus = (reply: Reply, status: number): Reply => {
  expect(reply.status, reply.text).toBe(status)
  return reply
}

/**
 * An Error body: `Content-Type: application/json` and exactly `{code, message, status}`, with
 * `status` equal to the HTTP status. `message` (optional) must appear in the message.
 */
export const expectError = (reply: Reply, status: number, code: string, message?: RegExp | string): Reply => {
  expectStatus(reply, status)
  expect(reply.headers.get("content-type")).toMatch(/^application\/json(;|$)/)
  expect(reply.body, reply.text).toBeTypeOf("object")
  expect(Object.keys(reply.body).sort()).toEqual(["code", "message", "status"])
  expect(reply.body.code).toBe(code)
  expect(reply.body.status).toBe(status)
  expect(reply.body.message).toBeTypeOf("string")
  expect(reply.body.message.length).toBeGreaterThan(0)
  if (message !== undefined) expect(reply.body.message).toMatch(message)
  return reply
}

/** 400 `invalid_request` whose message names `field` (`body name`, `query parameter limit` ...). */
export const expectInvalid = (reply: Reply, field: string): Reply => expectError(reply, 400, "invalid_request", field)

/** 401 with the Error body and a `WWW-Authenticate: Bearer` challenge. */
export const expectUnauthorized = (reply: Reply): Reply => {
  expectError(reply, 401, "unauthorized")
  expect(reply.headers.get("www-authenticate")).toMatch(/^Bearer( |$)/)
  return reply
}

const integer = (reply: Reply, name: string): number => {
  const value = reply.headers.get(name)
  expect(value, `${name} of ${reply.status} ${reply.text}`).toMatch(/^\d+$/)
  return Number(value)
}

export interface RateLimitHeaders {
  readonly limit: number
  readonly remaining: number
  /** Epoch seconds. */
  readonly reset: number
  readonly policy: string
  readonly state: string
}

/**
 * The rate-limit headers are present and well-formed: `X-RateLimit-Limit/Remaining/Reset` integers
 * (remaining ≤ limit, reset in epoch seconds) and the IETF `RateLimit-Policy` and `RateLimit` lists.
 */
export const expectRateLimitHeaders = (reply: Reply): RateLimitHeaders => {
  const limit = integer(reply, "x-ratelimit-limit")
  const remaining = integer(reply, "x-ratelimit-remaining")
  const reset = integer(reply, "x-ratelimit-reset")
  expect(limit).toBeGreaterThan(0)
  expect(remaining).toBeLessThanOrEqual(limit)
  expect(reset).toBeGreaterThan(1_000_000_000)
  const policy = reply.headers.get("ratelimit-policy") ?? ""
  const state = reply.headers.get("ratelimit") ?? ""
  expect(policy).toMatch(/^"minute";q=\d+;w=60(, "day";q=\d+;w=86400)?$/)
  expect(state).toMatch(/^"minute";r=\d+;t=\d+(, "day";r=\d+;t=\d+)?$/)
  return { limit, remaining, reset, policy, state }
}

/** A 429 with `code`, the rate-limit headers and `Retry-After` in whole seconds (≥ 1); returns it. */
export const expectTooManyRequests = (reply: Reply, code: string): number => {
  expectError(reply, 429, code)
  expectRateLimitHeaders(reply)
  const retryAfter = integer(reply, "retry-after")
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  return retryAfter
}

/** The remaining count of one limit (`minute` or `day`) in the `RateLimit` field. */
export const remainingOf = (reply: Reply, limit: "minute" | "day"): number => {
  const match = new RegExp(`"${limit}";r=(\\d+)`).exec(reply.headers.get("ratelimit") ?? "")
  expect(match, reply.headers.get("ratelimit") ?? "no RateLimit field").not.toBeNull()
  return Number(match![1])
}
