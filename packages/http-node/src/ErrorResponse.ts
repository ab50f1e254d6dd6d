/**
 * The one error mapper: every failure becomes `{code, message, status}` with the status its code
 * belongs to. Domain errors of the core are translated here and nowhere else.
 *
 * @since 1.0.0
 */
import { Errors, type Idempotency, type IdempotencyKey } from "@petstore/core"
import * as Data from "effect/Data"
import { type ErrorCode, ERROR_CODES } from "./ErrorCodes.js"

/** An error answer: its status, its code, and the JSON Error body, serialized once. */
export interface ErrorResult {
  readonly status: number
  readonly code: ErrorCode
  readonly body: string
  /** Headers the refusal carries (`Retry-After` of a key in use). */
  readonly headers?: Record<string, string> | undefined
}

/** The error answer with `code` (and the status it belongs to) and `message`. @category constructors */
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

/** The operation is past its sunset; `message` says since when and what replaces it. @category errors */
export class Gone extends Data.TaggedError("Gone")<{ readonly message: string }> {}

/** Input that passed the schema but cannot be used (an impossible date ...). @category errors */
export class InvalidInput extends Data.TaggedError("InvalidInput")<{ readonly message: string }> {}

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
      return make("invalid_request", error.message)
    case "WebhookNotFound":
      return make("not_found", `The account ${JSON.stringify(error.accountId)} has no webhook endpoint.`)
    case "InvalidWebhookUrl":
      return make("invalid_request", `body url: ${error.reason}`)
    case "Gone":
      return make("gone", error.message)
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
  unavailable: make("unavailable", `${STORE_UNAVAILABLE} Retry later.`)
} as const

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
