/**
 * The error catalogue: every stable `code` with its status and meaning, the `Error` body schema,
 * and every message an Error body carries. Stages, operations, the admin API, the host and the
 * `/docs` page take their refusals from here (the fixed ones built once in `STATIC`, the others
 * from a failure's data by `fromOperationError` or a named constructor); no other module writes an
 * error message. Domain errors of the core are translated here and nowhere else.
 *
 * @since 1.0.0
 */
import { Errors, type Idempotency, type IdempotencyKey } from "@petstore/core"
import * as Data from "effect/Data"
import * as Schema from "effect/Schema"
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
  forbidden_origin: {
    status: 403,
    description: "Console: the request comes from a page of another origin (its `Origin` or `Sec-Fetch-Site`); the console's session is accepted only from the server's own origin."
  },
  account_suspended: {
    status: 403,
    description: "The API key is valid but its account is suspended; requests are refused until an operator makes it active again."
  },
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

/** The one error body of the interface: `{code, message, status}`. @category schemas */
export const ErrorBody = Schema.Struct({
  code: Schema.String.annotate({ description: "Machine-readable error code (stable snake_case)." }),
  message: Schema.String.annotate({ description: "Human-readable description." }),
  status: Schema.Int.annotate({ description: "The HTTP status code." })
}).annotate({ identifier: "Error", description: "Every error response has this body." })
export type ErrorBody = typeof ErrorBody.Type

/** An error answer: its status, its code, and the JSON Error body, serialized once. */
export interface ErrorResult {
  readonly status: number
  readonly code: ErrorCode
  readonly body: string
  /** Headers the refusal carries (`Retry-After` of a key in use). */
  readonly headers?: Record<string, string> | undefined
}

/**
 * The error answer with `code` (and the status it belongs to) and `message`; the messages of the
 * interface's own answers are all in this module.
 *
 * @category constructors
 */
export const make = (code: ErrorCode, message: string): ErrorResult => {
  const status = ERROR_CODES[code].status
  return { status, code, body: JSON.stringify({ code, message, status }) }
}

/**
 * The 405 to `method` where only the methods of `allow` are answered (the `Allow` value: `GET, HEAD`).
 *
 * @category constructors
 */
export const methodNotAllowed = (method: string, allow: string): ErrorResult =>
  make("method_not_allowed", `${method} is not allowed here; allowed: ${allow}.`)

/**
 * The operation is past its sunset: `operation` (`GET /pets/{petId}`) was removed on `removedOn` (a
 * day for people); `replacement` says what to use instead. @category errors
 */
export class Gone extends Data.TaggedError("Gone")<{
  readonly operation: string
  readonly removedOn: string
  readonly replacement: string
}> {}

/**
 * Input that passed the schema but cannot be used: at `location` (`query`, `body expiresAt`), for
 * `reason` (the core's, such as a range too long), or, without one, because it is not a date.
 * @category errors
 */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{ readonly location: string; readonly reason?: string | undefined }> {}

/** The server counts no usage (`PETSTORE_USAGE=off`, or an application given no `Usage` service): 404. */
export class UsageNotCounted extends Data.TaggedError("UsageNotCounted")<{}> {}

/**
 * What a store that cannot be reached means for the request: the 503 `unavailable` answer to a store
 * failure says it (`STATIC.unavailable`), and so does every operation's 503 in the OpenAPI document (Api.ts).
 */
export const STORE_UNAVAILABLE = "The store cannot be reached; nothing was written."

/** A failure an operation handler may end with. */
export type OperationError =
  | Errors.PetNotFound
  | Errors.MessageNotFound
  | Errors.InvalidCursor
  | Errors.StoreUnavailable
  | Errors.AccountNotFound
  | Errors.KeyNotFound
  | Errors.KeyAlreadyRotated
  | Errors.InvalidPlan
  | Errors.InvalidExpiry
  | Errors.WebhookNotFound
  | Errors.InvalidWebhookUrl
  | Gone
  | InvalidInput
  | UsageNotCounted
  | IdempotencyKey.InvalidIdempotencyKey
  | Idempotency.IdempotencyKeyInUse
  | Idempotency.IdempotencyKeyReused

/** The answer to a failure of an operation handler. @category conversions */
export const fromOperationError = (error: OperationError): ErrorResult => {
  switch (error._tag) {
    case "PetNotFound":
      return make("not_found", `No animal has id ${error.id}.`)
    case "MessageNotFound":
      return make("not_found", `No message has id ${JSON.stringify(error.id)}.`)
    case "InvalidCursor":
      return make("invalid_cursor", `Invalid cursor: ${error.reason}.`)
    case "StoreUnavailable":
      return STATIC.unavailable
    case "AccountNotFound":
      return make("not_found", `No account has id ${JSON.stringify(error.id)}.`)
    case "KeyNotFound":
      return make("not_found", `No active key has id ${JSON.stringify(error.id)}.`)
    case "KeyAlreadyRotated":
      return make(
        "key_already_rotated",
        `The key ${JSON.stringify(error.id)} was already rotated: its successor is ${JSON.stringify(error.successorId)}. ` +
          `A key is rotated once; rotate ${JSON.stringify(error.successorId)} to replace it in turn.`
      )
    case "InvalidPlan":
      return make("invalid_request", `body: ${error.reason}`)
    case "InvalidExpiry":
      return make("invalid_request", `body expiresAt: ${new Date(error.expiresAt).toISOString()} is not in the future; a key must expire after it is issued.`)
    case "InvalidInput":
      return make("invalid_request", `${error.location}: ${error.reason ?? "is not a valid date"}`)
    case "WebhookNotFound":
      return make("not_found", `The account ${JSON.stringify(error.accountId)} has no webhook endpoint.`)
    case "InvalidWebhookUrl":
      return make("invalid_request", `body url: ${error.reason}`)
    case "Gone":
      return make("gone", `${error.operation} was removed on ${error.removedOn}; use ${error.replacement}.`)
    case "UsageNotCounted":
      return make("not_found", "This server counts no usage.")
    case "InvalidIdempotencyKey":
      return make("invalid_idempotency_key", `Idempotency-Key: ${error.reason}.`)
    case "IdempotencyKeyInUse":
      return {
        ...make("idempotency_key_in_use", "A request with this Idempotency-Key is still being carried out; retry it after Retry-After seconds."),
        headers: { "Retry-After": String(error.retryAfterSeconds) }
      }
    case "IdempotencyKeyReused":
      return make(
        "idempotency_key_reused",
        `This Idempotency-Key was used with another request (${error.operation === "createPet" ? "POST /pets" : "POST /messages"} with another body); send a new key for a new request.`
      )
  }
}

/** Answers that never change, built once. */
export const STATIC = {
  malformedRequest: make("invalid_request", "The request is not valid HTTP/1.1."),
  missingHost: make("invalid_request", "An HTTP/1.1 request must carry a Host header."),
  expectationFailed: make("expectation_failed", "Only `Expect: 100-continue` is supported."),
  headersTooLarge: make("headers_too_large", "The request's headers are larger than 16 KiB."),
  requestTimeout: make("request_timeout", "The request was not received completely in time."),
  unauthorized: make("unauthorized", "A valid API key is required: send `Authorization: Bearer <API_KEY>`."),
  routeNotFound: make("not_found", "No such route."),
  // The code's meaning is the whole message.
  payloadTooLarge: make("payload_too_large", ERROR_CODES.payload_too_large.description),
  unsupportedMediaType: make("unsupported_media_type", "The body must be JSON, sent with `Content-Type: application/json`."),
  internal: make("internal_error", "An unexpected error occurred; it has been logged."),
  bodyConsumed: make(
    "internal_error",
    "The request body was read by the server hosting this service before the service could read it; nothing was done."
  ),
  unavailable: make("unavailable", `${STORE_UNAVAILABLE} Retry later.`),
  tooManyConnections: make("unavailable", "The server holds as many connections as it may; retry in a moment."),
  shuttingDown: make("unavailable", "Not ready: the server is shutting down."),
  // The limiter's refusals of a key, by verdict.
  rateLimited: make("rate_limited", "Rate limit exceeded; retry after the number of seconds in Retry-After."),
  dailyQuotaExceeded: make("daily_quota_exceeded", "Daily quota exhausted; it resets at 00:00 UTC (see Retry-After)."),
  keyBanned: make(
    "key_banned",
    "This key kept sending while told to wait and is temporarily banned; retry after the number of seconds in Retry-After."
  ),
  accountSuspended: make("account_suspended", "The account of this API key is suspended; contact the operator of this service."),
  failedAuthLimited: make(
    "rate_limited",
    "Too many requests without a valid API key from this address; retry after the number of seconds in Retry-After."
  ),
  // Not the API key's message: the admin paths take the admin token, which an API key never is.
  adminTokenRequired: make(
    "unauthorized",
    "The admin token is required: send `Authorization: Bearer <PETSTORE_ADMIN_TOKEN>` (an API key is not accepted here)."
  ),
  adminTokensLimited: make("rate_limited", "Too many failed admin tokens from this address; retry after `Retry-After` seconds."),
  forbiddenOrigin: make("forbidden_origin", "The console's session is accepted only from a page of this server's own origin."),
  consoleWrongToken: make("unauthorized", "Wrong admin token: sign in with the value of PETSTORE_ADMIN_TOKEN."),
  consoleSessionRequired: make("unauthorized", "No console session, or it has ended: sign in again (POST /console/session)."),
  consoleCsrfRequired: make(
    "unauthorized",
    "A request with the console's session cookie must carry its CSRF token in X-CSRF-Token (GET /console/session gives it)."
  ),
  consoleSignInBody: make(
    "invalid_request",
    "body: the admin token is required, as JSON {\"token\": \"…\"} or as the form field token (application/x-www-form-urlencoded)."
  ),
  consoleAssetNotFound: make("not_found", "No such asset of the console; reload /console."),
  referenceAssetNotFound: make("not_found", "No such asset of the API reference; reload /docs."),
  referenceAssetsLimited: make(
    "rate_limited",
    "Too many requests for the API reference's files from this address; retry after `Retry-After` seconds."
  )
} as const

/** The 503 of `/readyz` when a port is down, naming why. @category constructors */
export const notReady = (reasons: ReadonlyArray<string>): ErrorResult => make("unavailable", `Not ready: ${reasons.join("; ")}.`)

/** The 400 of input a schema refused; `description` is the schema's account of it (`query parameter limit: …`). @category constructors */
export const invalidRequest = (description: string): ErrorResult => make("invalid_request", description)

/** What a query parameter given twice is refused with (part of the 400's description). */
export const repeatedQueryParameter = (name: string): string => `query parameter ${name}: must be given at most once`

/** Why a body is not acceptable JSON. @category models */
export type JsonRefusal =
  | { readonly _tag: "TooDeep"; readonly maxDepth: number }
  | { readonly _tag: "NotJson"; readonly detail: string }

/** The 400 `invalid_json` of a body that is not acceptable JSON. @category constructors */
export const invalidJson = (refusal: JsonRefusal): ErrorResult =>
  make(
    "invalid_json",
    refusal._tag === "TooDeep" ? `The body nests deeper than ${refusal.maxDepth} levels.` : `The body is not valid JSON: ${refusal.detail}`
  )

/**
 * A request node:http could not parse or did not receive in time (its `clientError`), by the
 * parser's error code, with the statuses node itself would send.
 *
 * @category conversions
 */
export const fromClientError = (code: string | undefined): ErrorResult =>
  code === "HPE_HEADER_OVERFLOW"
    ? STATIC.headersTooLarge
    : code === "ERR_HTTP_REQUEST_TIMEOUT" || code === "ERR_HTTP_HEADERS_TIMEOUT"
    ? STATIC.requestTimeout
    : STATIC.malformedRequest
