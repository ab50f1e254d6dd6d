/**
 * An operation, the unit of change of the API: its declaration (the endpoint, with its schemas,
 * errors and OpenAPI prose), its handler (built once from the core services it uses), and the
 * headers every answer of it carries. Each operation is one module under `internal/operations`;
 * `Api.ts` lists them in their groups, and the application serves what is listed there.
 */
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as Effect from "effect/Effect"
import type { ResponseHeaders } from "../../AppResponse.js"
import type { OperationError } from "../../ErrorResponse.js"
import type { Handler, RouteContext } from "../routes.js"

/** What admin handlers know of the request. */
export interface AdminContext {
  /** The operation's route (`/admin/v1/accounts/:accountId/…`). */
  readonly path: string
  /** What the paths answers link to start with (empty unless the application is mounted under a base path). */
  readonly basePath: string
}

/**
 * The handler of endpoint `E`: its decoded input and the request's context in (`RouteContext` for
 * the public API, `AdminContext` for the admin API), its reply out.
 */
export type HandlerOf<E extends HttpApiEndpoint.ConstraintRequest, Ctx = RouteContext> = Handler<E, Ctx, OperationError>

export interface Operation<E extends HttpApiEndpoint.ConstraintRequest, R, Ctx = RouteContext> {
  readonly endpoint: E
  /** The handler, built once when the application is (from the services it yields). */
  readonly handler: Effect.Effect<HandlerOf<E, Ctx>, never, R>
  /** Headers of every answer of the operation, for an application mounted under `basePath`. */
  readonly headers?: ((basePath: string) => ResponseHeaders) | undefined
}

/** Any operation, as the application collects them. */
export type Any = Operation<any, any, any>

/** The services the operations `ops` need. */
export type Services<Ops extends ReadonlyArray<Any>> = Ops[number] extends Operation<any, infer R, any> ? R : never

/** An operation of the public API (typed against its own endpoint). */
export const make = <E extends HttpApiEndpoint.ConstraintRequest, R>(operation: Operation<E, R>): Operation<E, R> =>
  operation

/** An operation of the admin API (typed against its own endpoint), whose handler gets the admin context. */
export const makeAdmin = <E extends HttpApiEndpoint.ConstraintRequest, R>(
  operation: Operation<E, R, AdminContext>
): Operation<E, R, AdminContext> => operation
