/**
 * What every operation's declaration shares: the API key security, the response headers an
 * operation declares besides the rate-limit ones, the Error responses every operation can give,
 * and the path prefix of the public API.
 *
 * @since 1.0.0
 */
import type * as Endpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as OpenApi from "effect/http-api/OpenApi"
import { ErrorBody } from "@petstore/core"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { ERROR_CODES } from "../../ErrorCodes.js"
import { STORE_UNAVAILABLE } from "../../ErrorResponse.js"

/** The path prefix of the pet operations (part of both environments' base URLs). */
export const PUBLIC_PREFIX = "/v1"

/** Bearer authentication with an API key, on every public operation. */
export class ApiKeyAuth extends HttpApiMiddleware.Tag<ApiKeyAuth>()("ApiKeyAuth", {
  security: { bearerAuth: HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(OpenApi.Format, "API key")) }
}) {}

/** Response headers an operation sets besides the rate-limit ones (read by the OpenAPI document). */
export class ResponseHeaders extends Context.Service<
  ResponseHeaders,
  ReadonlyArray<"Link" | "Location" | "Deprecation" | "Sunset" | "Idempotent-Replayed">
>()("@petstore/http-node/ResponseHeaders") {}

/** Decimal digits of an integer, as a path or query parameter is written. */
export const digits = Schema.String.pipe(Schema.pattern(/^[0-9]{1,20}$/, { message: () => "must be an integer" }))

/** An Error response with `status`, described. */
export const error = (status: number, description: string) =>
  ErrorBody.ErrorBody.annotate(HttpApiSchema.annotate({ status, description }))

/** The Error responses every operation can give, whatever its own. */
// Every endpoint already declares an Error body, so adding more statuses leaves its type unchanged.
export const withCommonErrors = <E extends Endpoint.HttpApiEndpoint.Any>(endpoint: E): E =>
  (endpoint as unknown as Endpoint.HttpApiEndpoint.AnyWithProps)
    .addError(error(401, "The API key is missing or invalid."))
    .addError(error(429, "Rate limit or daily quota exceeded, or the key is temporarily banned."))
    .addError(error(500, "Internal error."))
    .addError(error(503, STORE_UNAVAILABLE)) as unknown as E

/** 400: the query, path or body is invalid. */
export const invalid = error(400, "The request is invalid (query, path or body).")
/** 413: the body is over the limit. */
export const tooLarge = error(413, ERROR_CODES.payload_too_large.description)
/** 404: the `what` named by the path does not exist. */
export const notFound = (what: string) => error(404, `The requested ${what} does not exist.`)
