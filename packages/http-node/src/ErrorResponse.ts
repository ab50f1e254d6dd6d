/**
 * The one error mapper: every failure becomes `{code, message, status}` with the status its code
 * belongs to. Domain errors of the core are translated here and nowhere else.
 *
 * @since 1.0.0
 */
import { Errors } from "@petstore/core"
import { type ErrorCode, ERROR_CODES } from "./ErrorCodes.js"

export interface ErrorResult {
  readonly status: number
  readonly code: ErrorCode
  readonly body: string
}

/** @category constructors */
export const make = (code: ErrorCode, message: string): ErrorResult => {
  const status = ERROR_CODES[code].status
  return { status, code, body: JSON.stringify({ code, message, status }) }
}

/** The operation is past its sunset. */
export class Gone {
  readonly _tag = "Gone"
  constructor(readonly message: string) {}
}

/** Input that passed the schema but cannot be used (an impossible date ...). */
export class InvalidInput {
  readonly _tag = "InvalidInput"
  constructor(readonly message: string) {}
}

/** A failure an operation handler may end with. */
export type OperationError =
  | Errors.PetNotFound
  | Errors.MessageNotFound
  | Errors.InvalidCursor
  | Errors.StoreUnavailable
  | Errors.AccountNotFound
  | Errors.KeyNotFound
  | Errors.InvalidPlan
  | Errors.InvalidExpiry
  | Gone
  | InvalidInput

/** @category conversions */
export const fromOperationError = (error: OperationError): ErrorResult => {
  switch (error._tag) {
    case "PetNotFound":
      return make("not_found", `No animal has id ${error.id}.`)
    case "MessageNotFound":
      return make("not_found", `No message has id ${JSON.stringify(error.id)}.`)
    case "InvalidCursor":
      return make("invalid_cursor", `Invalid cursor: ${error.reason}.`)
    case "StoreUnavailable":
      return make("unavailable", "The store cannot be reached; nothing was written. Retry later.")
    case "AccountNotFound":
      return make("not_found", `No account has id ${JSON.stringify(error.id)}.`)
    case "KeyNotFound":
      return make("not_found", `No active key has id ${JSON.stringify(error.id)}.`)
    case "InvalidPlan":
      return make("invalid_request", `body: ${error.reason}`)
    case "InvalidExpiry":
      return make("invalid_request", `body expiresAt: ${new Date(error.expiresAt).toISOString()} is not in the future; a key must expire after it is issued.`)
    case "InvalidInput":
      return make("invalid_request", error.message)
    case "Gone":
      return make("gone", error.message)
  }
}

/** Answers that never change, built once. */
export const STATIC = {
  malformedRequest: make("invalid_request", "The request is not valid HTTP/1.1."),
  missingHost: make("invalid_request", "An HTTP/1.1 request must carry a Host header."),
  expectationFailed: make("expectation_failed", "Only `Expect: 100-continue` is supported."),
  connectNotAllowed: make("method_not_allowed", "CONNECT is not allowed here; allowed: GET, HEAD, POST, DELETE."),
  headersTooLarge: make("headers_too_large", "The request's headers are larger than 16 KiB."),
  requestTimeout: make("request_timeout", "The request was not received completely in time."),
  unauthorized: make("unauthorized", "A valid API key is required: send `Authorization: Bearer <API_KEY>`."),
  routeNotFound: make("not_found", "No such route."),
  payloadTooLarge: make("payload_too_large", "The body is larger than 64 KiB."),
  unsupportedMediaType: make("unsupported_media_type", "The body must be JSON, sent with `Content-Type: application/json`."),
  internal: make("internal_error", "An unexpected error occurred; it has been logged."),
  bodyConsumed: make(
    "internal_error",
    "The request body was read by the server hosting this service before the service could read it; nothing was done."
  ),
  unavailable: make("unavailable", "The store cannot be reached; nothing was written. Retry later.")
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
