/**
 * The stages of a request once it is admitted, shared by the public and the admin API:
 * route (404, 405) → read body (413; 400 for a body not JSON) → decode (400) → operate. Each stage is a
 * function with its own small result; the answer is labelled with the route that gave it.
 *
 * @since 1.0.0
 */
import { Sync } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import type { AppRequest } from "../AppRequest.js"
import { JSON_CONTENT_TYPE, type ResponseHeaders } from "../AppResponse.js"
import * as ErrorResponse from "../ErrorResponse.js"
import * as JsonBody from "./jsonBody.js"
import type * as Routes from "./routes.js"
import { type Answer, answer, type AnsweringRoute, refusal } from "./answer.js"
import { guarded } from "./recover.js"

type Route<Ctx> = Routes.CompiledRoute<Ctx, ErrorResponse.OperationError>
type Found<Ctx> = NonNullable<ReturnType<Routes.RouteTable<Ctx, ErrorResponse.OperationError>["find"]>>

/** What reading the body gave: the payload, or the answer that refuses it. */
type Payload =
  | { readonly _tag: "Payload"; readonly value: unknown }
  | { readonly _tag: "Refused"; readonly answer: Answer }

const NO_PAYLOAD: Payload = { _tag: "Payload", value: undefined }
const EMPTY_OBJECT: Payload = { _tag: "Payload", value: {} }
const refused = (error: ErrorResponse.ErrorResult, headers?: ResponseHeaders): Payload => ({
  _tag: "Refused",
  answer: refusal(error, headers)
})

const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const semi = contentType.indexOf(";")
  return (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === JSON_CONTENT_TYPE
}

export interface ServeOptions<Ctx> {
  readonly routes: Routes.RouteTable<Ctx, ErrorResponse.OperationError>
  /** The largest body read, in bytes (413 beyond). */
  readonly bodyLimit: number
  /** An empty body stands for `{}` (the admin API, whose bodies are all optional objects). */
  readonly emptyBodyIsObject: boolean
  /** `Allow` of a path the application answers outside this table (the document), if any. */
  readonly allowedElsewhere: (url: string) => string | undefined
  /** The operation's own headers, by operation name, for an application mounted under `basePath`. */
  readonly operationHeaders: Readonly<Record<string, (basePath: string) => ResponseHeaders>>
}

/** Stage route, when no route matches: 404 for an unknown path, 405 with `Allow` for another method. */
const unrouted = <Ctx>(options: ServeOptions<Ctx>, request: AppRequest): Answer => {
  const allow = options.routes.allowed(request.url) ?? options.allowedElsewhere(request.url)
  if (allow === undefined) return refusal(ErrorResponse.STATIC.routeNotFound)
  return refusal(
    ErrorResponse.make("method_not_allowed", `${request.method} is not allowed here; allowed: ${allow}.`),
    { Allow: allow }
  )
}

/** Stage read body: the JSON payload of a route that takes one, or its refusal. */
const readPayload = <Ctx>(options: ServeOptions<Ctx>, request: AppRequest, route: Route<Ctx>): Effect.Effect<Payload> => {
  if (!route.hasPayload) return Exit.succeed(NO_PAYLOAD)
  return Sync.flatMap(request.readBody(options.bodyLimit), (body): Effect.Effect<Payload> => {
    if (body._tag === "TooLarge") return Exit.succeed(refused(ErrorResponse.STATIC.payloadTooLarge, { Connection: "close" }))
    if (body._tag === "Consumed") {
      return Effect.as(
        Effect.logError("a request body was read by the host server before it reached the pet store"),
        refused(ErrorResponse.STATIC.bodyConsumed)
      )
    }
    if (body.bytes.length === 0 && options.emptyBodyIsObject) return Exit.succeed(EMPTY_OBJECT)
    if (!isJson(request.header("content-type"))) return Exit.succeed(refused(ErrorResponse.STATIC.unsupportedMediaType))
    const payload = JsonBody.parse(body.bytes)
    return Exit.succeed(
      Either.isLeft(payload)
        ? refused(ErrorResponse.make("invalid_json", payload.left))
        : { _tag: "Payload", value: payload.right }
    )
  })
}

/** Stage decode: the operation's input from the path, the query and the payload, or the first failure (400). */
const decode = <Ctx>(found: Found<Ctx>, payload: unknown): Either.Either<Record<string, unknown>, Answer> => {
  const route = found.handler
  const input: Record<string, unknown> = {}
  if (route.decodePath !== undefined) {
    const path = route.decodePath(found.params)
    if (Either.isLeft(path)) return Either.left(refusal(ErrorResponse.make("invalid_request", path.left.message)))
    input.path = path.right
  }
  if (route.decodeQuery !== undefined) {
    const query = route.decodeQuery(found.searchParams)
    if (Either.isLeft(query)) return Either.left(refusal(ErrorResponse.make("invalid_request", query.left.message)))
    input.urlParams = query.right
  }
  if (route.decodePayload !== undefined) {
    const decoded = route.decodePayload(payload)
    if (Either.isLeft(decoded)) return Either.left(refusal(ErrorResponse.make("invalid_request", decoded.left.message)))
    input.payload = decoded.right
  }
  return Either.right(input)
}

/**
 * Stage operate: the operation's reply, or its failure as an Error answer. Run here, where the
 * request is answered: an operation over work that completes at once (an in-memory write or
 * read, see `Sync.now`) is answered without a fiber.
 */
const operate = <Ctx>(route: Route<Ctx>, input: Record<string, unknown>, context: Ctx): Effect.Effect<Answer> =>
  Sync.match(Sync.now(route.handler(input, context)), {
    onFailure: (error) => refusal(ErrorResponse.fromOperationError(error)),
    onSuccess: (reply) =>
      answer(
        route.successStatus,
        route.successStatus === 204 ? undefined : reply.encoded ?? JSON.stringify(reply.value),
        reply.headers
      )
  })

/** Read body → decode → operate, for a request that `found` a route. */
const serveFound = <Ctx>(
  options: ServeOptions<Ctx>,
  request: AppRequest,
  found: Found<Ctx>,
  context: (path: string) => Ctx
): Effect.Effect<Answer> => {
  const route = found.handler
  return Sync.flatMap(readPayload(options, request, route), (payload): Effect.Effect<Answer> => {
    if (payload._tag === "Refused") return Exit.succeed(payload.answer)
    const input = decode(found, payload.value)
    return Either.isLeft(input) ? Exit.succeed(input.left) : operate(route, input.right, context(route.path))
  })
}

/** The function that serves an admitted request with `options.routes`, in the context `context` makes. */
export const make = <Ctx>(options: ServeOptions<Ctx>) => {
  const label = (route: Route<Ctx>, basePath: string): AnsweringRoute => ({
    template: route.template,
    headers: options.operationHeaders[route.name]?.(basePath)
  })
  // The label of each route at the root, made at its first request (as many as the table has
  // routes); under a mount the operation's headers name the mount's paths, so they are made anew.
  const atRoot = new Map<Route<Ctx>, AnsweringRoute>()
  const answering = (route: Route<Ctx>, basePath: string | undefined): AnsweringRoute => {
    if (basePath) return label(route, basePath)
    let labelled = atRoot.get(route)
    if (labelled === undefined) {
      labelled = label(route, "")
      atRoot.set(route, labelled)
    }
    return labelled
  }

  return (request: AppRequest, context: (path: string) => Ctx): Effect.Effect<Answer> => {
    let found: Found<Ctx> | undefined
    const answer = guarded(() => {
      found = options.routes.find(request.method, request.url)
      return found === undefined ? Exit.succeed(unrouted(options, request)) : serveFound(options, request, found, context)
    })
    if (found === undefined) return answer
    // Labelled here, outside the guard, so that a 5xx of a route names its route too.
    const routeLabel = answering(found.handler, request.basePath)
    return Sync.map(answer, (answer) => {
      answer.route = routeLabel
      return answer
    })
  }
}
