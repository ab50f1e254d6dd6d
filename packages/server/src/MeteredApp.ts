/**
 * The application with every answer counted by route template and status, and timed
 * (`petstore_http_requests_total`, `petstore_http_request_duration_seconds`). It wraps the
 * application's `handle`, so an answer that is already there stays one (no fiber); the time is
 * taken around the call, or until the answer when it comes later.
 *
 * @since 1.0.0
 */
import * as App from "@petstore/http-node/App"
import type * as AppResponse from "@petstore/http-node/AppResponse"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type { Metrics } from "./Metrics.js"

const record = (metrics: Metrics, start: number, exit: Exit.Exit<AppResponse.AppResponse>) => {
  const seconds = (performance.now() - start) / 1000
  // A defect is answered 500 by the server; an interruption (the client left) is answered by no one.
  if (Exit.isSuccess(exit)) metrics.request(exit.value.route, exit.value.status, seconds)
  else if (!Exit.isInterrupted(exit)) metrics.request(undefined, 500, seconds)
}

/** `app` with its answers counted and timed in `metrics` (its paths and its drain kept as they are). */
export const meter = (app: App.App["Type"], metrics: Metrics): App.App["Type"] => ({
  ...app,
  handle: (request) => {
    const start = performance.now()
    let answer: Effect.Effect<AppResponse.AppResponse>
    try {
      answer = app.handle(request)
    } catch (defect) {
      answer = Effect.die(defect)
    }
    if (Exit.isExit(answer)) {
      record(metrics, start, answer as Exit.Exit<AppResponse.AppResponse>)
      return answer
    }
    // The application turns every failure and defect into an answer (503, 500), so the answer is
    // all there is to count; `map` costs a fraction of `onExit` on this path, which every POST takes.
    return Effect.map(answer, (response) => {
      metrics.request(response.route, response.status, (performance.now() - start) / 1000)
      return response
    })
  }
})

/** Replaces the application below with its metered version. */
export const layer = (metrics: Metrics): Layer.Layer<App.App, never, App.App> =>
  Layer.effect(App.App, Effect.map(App.App, (app) => meter(app, metrics)))
