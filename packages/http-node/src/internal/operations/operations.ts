/**
 * The operations of an API as the application serves them: their handlers by endpoint name (built
 * once, from the services they yield) and the headers of each operation that has its own.
 */
import * as Effect from "effect/Effect"
import type { ResponseHeaders } from "../../AppResponse.js"
import type * as Operation from "./operation.js"

/** The handlers of `operations`, by endpoint name. */
export const handlers = <const Ops extends ReadonlyArray<Operation.Any>>(operations: Ops) =>
  Effect.map(
    Effect.all(operations.map((operation) => operation.handler)) as Effect.Effect<ReadonlyArray<unknown>, never, Operation.Services<Ops>>,
    (built) => Object.fromEntries(operations.map((operation, i) => [operation.endpoint.identifier, built[i]])) as Record<string, any>
  )

/** The headers of each operation of `operations` that has its own, by endpoint name. */
export const headers = (
  operations: ReadonlyArray<Operation.Any>
): Readonly<Record<string, (basePath: string) => ResponseHeaders>> =>
  Object.fromEntries(operations.flatMap((operation) => (operation.headers === undefined ? [] : [[operation.endpoint.identifier, operation.headers]])))
