/**
 * Stage route: the route of the request's method and path (404 for an unknown path, 405 with
 * `Allow` for a known path and another method). The answering route is noted on the exchange, so
 * every answer from here on names it (logs, metrics) and carries the operation's own headers.
 */
import type { ResponseHeaders } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import type * as Routes from "../routes.js"
import { type AnsweringRoute, refusal } from "./answer.js"
import type { Routed, Start } from "./exchange.js"
import { answerWith, GO_ON, type Stage } from "./pipeline.js"

type Route = Routes.CompiledRoute<any, ErrorResponse.OperationError>

export interface RouteOptions {
  readonly routes: Routes.RouteTable<any, ErrorResponse.OperationError>
  /** `Allow` of a path the application answers outside this table (the document), if any. */
  readonly allowedElsewhere: (url: string) => string | undefined
  /** The operation's own headers, by operation name, for an application mounted under `basePath`. */
  readonly operationHeaders: Readonly<Record<string, (basePath: string) => ResponseHeaders>>
}

const NOT_FOUND = answerWith(refusal(ErrorResponse.STATIC.routeNotFound))

export const make = (options: RouteOptions): Stage<Start, Routed> => {
  const label = (route: Route, basePath: string): AnsweringRoute => ({
    template: route.template,
    headers: options.operationHeaders[route.name]?.(basePath)
  })
  // The label of each route at the root, made at its first request (as many as the table has
  // routes); under a mount the operation's headers name the mount's paths, so they are made anew.
  const atRoot = new Map<Route, AnsweringRoute>()
  const answering = (route: Route, basePath: string): AnsweringRoute => {
    if (basePath !== "") return label(route, basePath)
    let labelled = atRoot.get(route)
    if (labelled === undefined) {
      labelled = label(route, "")
      atRoot.set(route, labelled)
    }
    return labelled
  }

  return (exchange) => {
    const { method, url } = exchange.request
    const found = options.routes.find(method, url)
    if (found !== undefined) {
      exchange.found = found
      exchange.route = answering(found.handler, exchange.basePath)
      return GO_ON
    }
    const allow = options.routes.allowed(url) ?? options.allowedElsewhere(url)
    if (allow === undefined) return NOT_FOUND
    return answerWith(refusal(ErrorResponse.methodNotAllowed(method, allow), { Allow: allow }))
  }
}
