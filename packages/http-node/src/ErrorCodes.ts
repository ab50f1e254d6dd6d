/**
 * The stable `code` values of Error bodies, with the status each is sent with.
 *
 * @since 1.0.0
 */
import { BODY_LIMIT_TEXT } from "./internal/limits.js"

/** Each code's status and meaning (the OpenAPI document's table of codes, and some responses' descriptions). */
export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    description: "A query parameter, path parameter or body field is missing or invalid, or the request is not valid HTTP."
  },
  invalid_json: { status: 400, description: "The body is not valid JSON." },
  unsupported_media_type: { status: 400, description: "A body was sent without `Content-Type: application/json`." },
  invalid_cursor: { status: 400, description: "The page cursor was not issued by this service, was altered, or belongs to another status filter." },
  invalid_idempotency_key: {
    status: 400,
    description: "The `Idempotency-Key` header is not 1 to 255 printable ASCII characters, bare or as a quoted string."
  },
  idempotency_key_in_use: {
    status: 409,
    description: "A request with this `Idempotency-Key` is still being carried out; retry after `Retry-After` seconds."
  },
  key_already_rotated: {
    status: 409,
    description: "Admin API: the key was rotated already (a key is rotated once); the message names its successor, which is the key to rotate."
  },
  idempotency_key_reused: {
    status: 422,
    description: "This `Idempotency-Key` was used with another body or on another operation; use a new key for a new request."
  },
  unauthorized: { status: 401, description: "The API key (or admin token) is missing, malformed, unknown, revoked or expired." },
  not_found: { status: 404, description: "No such route, animal or message." },
  method_not_allowed: { status: 405, description: "The route exists but not with this method; see the `Allow` header." },
  gone: { status: 410, description: "The operation has reached its sunset date and was removed." },
  request_timeout: { status: 408, description: "The request was not received completely in time; the connection is closed." },
  payload_too_large: { status: 413, description: `The body is larger than ${BODY_LIMIT_TEXT}.` },
  expectation_failed: { status: 417, description: "The request's `Expect` header asks for something other than `100-continue`." },
  headers_too_large: { status: 431, description: "The request's headers are larger than the server accepts (16 KiB)." },
  rate_limited: { status: 429, description: "The per-minute limit of the account (or of failed authentications from this address) is exhausted; retry after `Retry-After` seconds." },
  daily_quota_exceeded: { status: 429, description: "The account's daily quota is used up; it resets at 00:00 UTC (`Retry-After`)." },
  key_banned: { status: 429, description: "The key kept sending while told to wait and is banned for `Retry-After` seconds." },
  internal_error: { status: 500, description: "An unexpected error; it is logged, and no detail is exposed." },
  unavailable: { status: 503, description: "The store cannot be reached, or the server holds as many connections as it may; nothing was written. Retry later (`Retry-After` when given)." }
} as const satisfies Record<string, { readonly status: number; readonly description: string }>

/** One of the stable codes. */
export type ErrorCode = keyof typeof ERROR_CODES
