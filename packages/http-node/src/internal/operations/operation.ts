/**
 * An operation, the unit of change of the API: its declaration (the endpoint, with its schemas,
 * errors and OpenAPI prose), its handler (built once from the core services it uses), and the
 * headers every answer of it carries. Each operation is one module under `internal/operations`;
 * `Api.ts` lists them in their groups, and the application serves what is listed there.
 *
 * @since 1.0.0
 */
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type * as Effect from "effect/Effect"
import type { ResponseHeaders } from "../../AppResponse.js"
import type { OperationError } from "../../ErrorResponse.js"
import type { Handler, RouteContext } from "../routes.js"

/** The handler of endpoint `E`: its decoded input and the request's context in, its reply out. */
export type HandlerOf<E extends HttpApiEndpoint.ConstraintRequest> = Handler<E, RouteContext, OperationError>

export interface Operation<E extends HttpApiEndpoint.ConstraintRequest, R> {
  readonly endpoint: E
  /** The handler, built once when the application is (from the services it yields). */
  readonly handler: Effect.Effect<HandlerOf<E>, never, R>
  /** Headers of every answer of the operation, for an application mounted under `basePath`. */
  readonly headers?: ((basePath: string) => ResponseHeaders) | undefined
}

/** Any operation, as the application collects them. */
export type Any = Operation<any, any>

/** The services the operations `ops` need. */
export type Services<Ops extends ReadonlyArray<Any>> = Ops[number] extends Operation<any, infer R> ? R : never

/** An operation (typed against its own endpoint). */
export const make = <E extends HttpApiEndpoint.ConstraintRequest, R>(operation: Operation<E, R>): Operation<E, R> =>
  operation
