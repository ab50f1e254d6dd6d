/**
 * The public surface of `@petstore/http-node`. The machinery behind it (routing table, stages of a
 * request, document building, header writing) lives in `src/internal/` and is not exported.
 *
 * @since 1.0.0
 */

/** The admin API's `HttpApi` definition: accounts and keys, behind the admin token. */
export * as AdminApi from "./AdminApi.js"
/** The syntax of a bearer token, shared by requests and the configured admin token. */
export * as BearerToken from "./BearerToken.js"
/** The interface's `HttpApi` definition: the single source of truth of routes, schemas and errors. */
export * as Api from "./Api.js"
/** The application service: `App.layer(options)` answers any `AppRequest`, whatever the host. */
export * as App from "./App.js"
/** A request as the application sees it, for hosts of your own. */
export * as AppRequest from "./AppRequest.js"
/** What the application answers, for hosts of your own. */
export * as AppResponse from "./AppResponse.js"
/** A typed client of the interface, derived from `Api`. */
export * as Client from "./Client.js"
/** The node:http listener's connection limits and their defaults. */
export * as Connections from "./Connections.js"
/** The application as an Effect `HttpApp`, and as layers for an Effect HTTP server. */
export * as EffectHttp from "./EffectHttp.js"
/** The stable error codes of the `Error` body, each with its status (the catalogue's table, `ErrorResponse.ERROR_CODES`). */
export * as ErrorCodes from "./ErrorCodes.js"
/** The error catalogue: every code with its status, the `Error` body `{code, message, status}` and every message it carries. */
export * as ErrorResponse from "./ErrorResponse.js"
/** The application as a `node:http` request listener, for an existing server. */
export * as NodeHandler from "./NodeHandler.js"
/** The OpenAPI 3.0 document of an `Api`, as served at `/v1/openapi.json`. */
export * as OpenApiDocument from "./OpenApiDocument.js"
/** Request ids, the access log, metrics and traces around `App.handle`: their options. */
export * as RequestObserver from "./RequestObserver.js"
/** The standalone server: the application on a `node:http` listener, with graceful shutdown. */
export * as Server from "./Server.js"
/** The application as a fetch-style handler (`Request` in, `Response` out). */
export * as WebHandler from "./WebHandler.js"
