/**
 * Running the application for a server that answers through a callback. `Sync.run` makes the one
 * decision of the fast path: a request none of whose stages waits is answered at once, without a
 * fiber; any other runs in one fiber. What the application cannot answer (a defect of the runner
 * itself) is the one 500 body, `ErrorResponse.STATIC.internal`.
 *
 * @internal
 */

import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import { App } from "../../App.js"
import type { AppRequest } from "../../AppRequest.js"
import { type AppResponse, JSON_CONTENT_TYPE } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"

/**
 * Answers `request` with `answer(target, response)`, on the current runtime (its services, clock
 * and logger). The target is passed along so that no closure is made per request.
 */
export type Runner = <T>(request: AppRequest, target: T, answer: (target: T, response: AppResponse) => void) => void

const internalError = (): AppResponse => ({
  status: 500,
  headers: { "Content-Type": JSON_CONTENT_TYPE },
  body: ErrorResponse.STATIC.internal.body
})

export const make: Effect.Effect<Runner, never, App> = Effect.gen(function*() {
  const app = yield* App
  // Fiber metrics are never read by this server; counting them costs every request.
  const runtime = Runtime.disableRuntimeFlag(yield* Effect.runtime<never>(), RuntimeFlags.RuntimeMetrics)
  const fork = Runtime.runFork(runtime)
  return (request, target, answer) =>
    Sync.run(app.handle(request), fork, (exit) => answer(target, Exit.isSuccess(exit) ? exit.value : internalError()))
})
