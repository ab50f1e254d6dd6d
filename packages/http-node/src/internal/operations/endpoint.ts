/**
 * What every operation's declaration shares: the API key security, the response headers an
 * operation declares besides the rate-limit ones, the Error responses every operation can give,
 * and the path prefix of the public API.
 */
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { ERROR_CODES, ErrorBody, STORE_UNAVAILABLE } from "../../ErrorResponse.js"

/** The path prefix of the pet operations (part of both environments' base URLs). */
export const PUBLIC_PREFIX = "/v1"

/** Bearer authentication with an API key, on every public operation. */
export class ApiKeyAuth extends HttpApiMiddleware.Service<ApiKeyAuth>()("ApiKeyAuth", {
  security: { bearerAuth: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(OpenApi.Format, "API key")) }
}) {}

/** Response headers an operation sets besides the rate-limit ones (read by the OpenAPI document). */
export class ResponseHeaders extends Context.Service<
  ResponseHeaders,
  ReadonlyArray<"Link" | "Location" | "Deprecation" | "Sunset" | "Idempotent-Replayed">
>()("@petstore/http-node/ResponseHeaders") {}

/** Decimal digits of an integer, as a path or query parameter is written. */
export const digits = Schema.String.check(Schema.isPattern(/^[0-9]{1,20}$/, { message: "must be an integer" }))

/** A query parameter's integer from 1 to 100, in decimal digits (`1e2`, `0x10`, ` 100`, `100.0` are refused). */
export const integer1To100 = digits.pipe(Schema.decodeTo(Schema.NumberFromString)).check(
  Schema.isInt(),
  Schema.isBetween({ minimum: 1, maximum: 100 }, { message: "must be an integer between 1 and 100" })
)

/** An Error response with `status`, described. */
export const error = (status: number, description: string) =>
  ErrorBody.pipe(HttpApiSchema.status(status)).annotate({ description })

/** The Error responses every operation can give, whatever its own. */
/** The Error answers every operation can give, whatever it does: each endpoint lists them after its own. */
export const commonErrors = [
  error(401, "The API key is missing or invalid."),
  error(403, "The API key's account is suspended (`account_suspended`); no `WWW-Authenticate` header."),
  error(429, "Rate limit or daily quota exceeded, or the key is temporarily banned."),
  error(500, "Internal error."),
  error(503, STORE_UNAVAILABLE)
] as const

export const invalid = error(400, "The request is invalid (query, path or body).")
/** 413: the body is over the limit. */
export const tooLarge = error(413, ERROR_CODES.payload_too_large.description)
/** 404: the `what` named by the path does not exist. */
export const notFound = (what: string) => error(404, `The requested ${what} does not exist.`)
