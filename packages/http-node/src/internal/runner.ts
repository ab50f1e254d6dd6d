/**
 * Running the application for a server that answers through a callback: an answer that is
 * already there is passed on at once (no fiber); otherwise one fiber runs the request.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as RuntimeFlags from "effect/RuntimeFlags"
import { App } from "../App.js"
import type { AppRequest } from "../AppRequest.js"
import type { AppResponse } from "../AppResponse.js"

const INTERNAL_ERROR = JSON.stringify({ code: "internal_error", message: "An unexpected error occurred.", status: 500 })

/**
 * Answers `request` with `answer(target, response)`, on the current runtime (its services, clock
 * and logger). The target is passed along so that no closure is made per request.
 */
export type Runner = <T>(request: AppRequest, target: T, answer: (target: T, response: AppResponse) => void) => void

export const make: Effect.Effect<Runner, never, App> = Effect.gen(function*() {
  const app = yield* App
  // Fiber metrics are never read by this server; counting them costs every request.
  const runtime = Runtime.disableRuntimeFlag(yield* Effect.runtime<never>(), RuntimeFlags.RuntimeMetrics)
  const runFork = Runtime.runFork(runtime)
  const settle = <T>(target: T, answer: (target: T, response: AppResponse) => void, exit: Exit.Exit<AppResponse>) =>
    answer(
      target,
      Exit.isSuccess(exit) ? exit.value : { status: 500, headers: { "Content-Type": "application/json" }, body: INTERNAL_ERROR }
    )
  return (request, target, answer) => {
    let result: Effect.Effect<AppResponse>
    try {
      result = app.handle(request)
    } catch (defect) {
      result = Effect.die(defect)
    }
    // Already answered (every step of the request answered at once): no fiber to run.
    if (Exit.isExit(result)) return settle(target, answer, result as Exit.Exit<AppResponse>)
    runFork(result).addObserver((exit) => settle(target, answer, exit))
  }
})
