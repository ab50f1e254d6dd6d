/**
 * Running the application for a server that answers through a callback: each request runs in a
 * fiber of its own, and its answer is handed on when the fiber ends (a request none of whose stages
 * waits ends within the call). What the application cannot answer (a defect of the runner itself) is
 * the one 500 body, `ErrorResponse.STATIC.internal`.
 *
 * @internal
 */

import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
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
  // Each request runs in a fiber of its own with the services the application was built with.
  const fork = Effect.runForkWith(yield* Effect.context<never>())
  return (request, target, answer) =>
    void fork(app.handle(request)).addObserver((exit) => answer(target, Exit.isSuccess(exit) ? exit.value : internalError()))
})
