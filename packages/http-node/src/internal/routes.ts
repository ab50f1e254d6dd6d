/**
 * Routes compiled once from an `HttpApi`: method and path from the endpoint, decoders for path,
 * query and body from its schemas, the success status from its annotations. Nothing here runs per
 * request except the compiled functions themselves.
 */
import * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import { type Accounts, BoundedCache, type LimitDecision } from "@petstore/core"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as FindMyWay from "find-my-way-ts"
import type { ResponseHeaders } from "../AppResponse.js"
import { type OperationError, repeatedQueryParameter } from "../ErrorResponse.js"

/** What a handler answers: the success value (encoded with the endpoint's schema) and extra headers. */
export interface Reply<A> {
  readonly value: A
  readonly headers?: ResponseHeaders | undefined
  /** `value` already encoded as JSON, when the handler keeps the encoding of a value that never changes. */
  readonly encoded?: string | undefined
}

/** Where a request is being served: the route's path template and the authenticated principal. */
export interface RouteContext {
  readonly path: string
  readonly principal: Accounts.Principal
  /** The limiter's decision that admitted the request (absent where no limiter decided, as in some tests' stand-ins). */
  readonly decision?: LimitDecision.Decision | undefined
  /** The request's header values by lower-case name (the operations that read one: `Idempotency-Key`). */
  readonly header: (name: string) => string | undefined
}

type Input<E extends HttpApiEndpoint.ConstraintRequest> =
  & ([HttpApiEndpoint.Params<E>] extends [never] ? {} : { readonly path: HttpApiEndpoint.Params<E>["Type"] })
  & ([HttpApiEndpoint.Query<E>] extends [never] ? {} : { readonly urlParams: HttpApiEndpoint.Query<E>["Type"] })
  & ([HttpApiEndpoint.Payload<E>] extends [never] ? {} : { readonly payload: HttpApiEndpoint.Payload<E>["Type"] })

/** A handler of one endpoint, typed from its schemas. */
export type Handler<E extends HttpApiEndpoint.ConstraintRequest, Ctx, Err> = (
  input: Input<E>,
  context: Ctx
) => Effect.Effect<Reply<HttpApiEndpoint.Success<E>["Type"]>, Err>

/** One handler per endpoint of the group, by endpoint name. */
export type GroupHandlers<G extends HttpApiGroup.Constraint, Ctx = RouteContext, Err = OperationError> = {
  readonly [E in HttpApiGroup.Endpoints<G> as HttpApiEndpoint.Identifier<E>]: E extends HttpApiEndpoint.ConstraintRequest ? Handler<E, Ctx, Err> : never
}

/** Input the endpoint's schema refuses, described for the 400 answer. */
export class DecodeFailure extends Data.TaggedError("DecodeFailure")<{ readonly message: string }> {}

type Decoder = (input: unknown) => Result.Result<unknown, DecodeFailure>

/** A route ready to serve. */
export interface CompiledRoute<Ctx, Err> {
  readonly name: string
  readonly method: string
  readonly path: string
  /** Method and path template as the OpenAPI document writes it (`GET /v1/pets/{petId}`): for logs and metrics. */
  readonly template: string
  readonly successStatus: number
  readonly hasPayload: boolean
  readonly decodePath: Decoder | undefined
  readonly decodeQuery: Decoder | undefined
  readonly decodePayload: Decoder | undefined
  /** The success value as the endpoint's schema encodes it, as JSON text. */
  readonly encode: (value: unknown) => string
  readonly handler: (input: any, context: Ctx) => Effect.Effect<Reply<unknown>, Err>
}

/** The most of a bad value (and of the whole message) an answer repeats: a 64 KiB value is not echoed. */
const ISSUE_MAX = 200
const MESSAGE_MAX = 1_000

const clip = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

const describeIssues = (location: string, error: Schema.SchemaError): string =>
  clip(
    formatIssues(error.issue).issues
      .map((issue) => {
        const where = issue.path === undefined || issue.path.length === 0 ? location : `${location} ${issue.path.join(".")}`
        return `${where}: ${clip(issue.message, ISSUE_MAX)}`
      })
      .join("; "),
    MESSAGE_MAX
  )

type AnySchema = Schema.Codec<unknown, unknown, never, never>

const decoder = (schema: AnySchema, location: string): Decoder => {
  const decode = Schema.decodeUnknownResult(schema, { errors: "all", onExcessProperty: "ignore" })
  return (input) => Result.mapError(decode(input), (e) => new DecodeFailure({ message: describeIssues(location, e) }))
}

/** The body of an endpoint that declares no success schema. */
const NO_CONTENT = (): string => ""

/** Above this many remembered queries the memo starts over (queries with cursors are mostly unique). */
const QUERIES_KEPT = 1024

/**
 * Query parameters the endpoint declares; a repeated declared parameter is refused before decoding.
 * Decoding is a pure function of the declared parameters' values, so its result is remembered by
 * them: the usual queries (`limit=20`, a status filter) are decoded once.
 */
const queryDecoder = (schema: AnySchema): Decoder => {
  const ast = SchemaAST.toType(schema.ast)
  const declared = SchemaAST.isObjects(ast) ? ast.propertySignatures.map((p) => String(p.name)) : []
  const decode = decoder(schema, "query parameter")
  // Decoded queries (or their failures) by the declared parameters' values. Invalidation: none
  // needed. The schema is fixed at start-up and decoding depends on nothing else, so a kept result
  // is always what decoding again would give. Entries are dropped only when the memo starts over.
  const decoded = BoundedCache.make<string, ReturnType<Decoder>>(QUERIES_KEPT)
  return (input) => {
    const params = input as Record<string, string | ReadonlyArray<string>>
    const picked: Record<string, string> = {}
    let key = ""
    for (const name of declared) {
      const value = params[name]
      if (value === undefined) {
        key += "-"
        continue
      }
      if (typeof value !== "string") {
        return Result.fail(new DecodeFailure({ message: repeatedQueryParameter(name) }))
      }
      picked[name] = value
      // Length-prefixed, so no two tuples of values share a key whatever characters they hold.
      key += `${value.length}:${value}`
    }
    let result = decoded.get(key)
    if (result === undefined) {
      result = decode(picked)
      decoded.set(key, result)
    }
    return result
  }
}

/**
 * Compiles every endpoint of `api` with its handler. Fails at start-up when an endpoint has no
 * handler, so a route can never be declared and left unserved.
 */
export const compile = <Ctx, Err>(
  api: HttpApi.HttpApi<string, any>,
  handlers: Readonly<Record<string, (input: any, context: Ctx) => Effect.Effect<Reply<unknown>, Err>>>
): ReadonlyArray<CompiledRoute<Ctx, Err>> => {
  const routes: Array<CompiledRoute<Ctx, Err>> = []
  HttpApi.reflect(api as unknown as HttpApi.HttpApi<string, HttpApiGroup.Top>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, successes }) => {
      const handler = handlers[endpoint.identifier]
      if (handler === undefined) throw new Error(`no handler for endpoint ${endpoint.identifier}`)
      const status = successes.keys().next()
      const success = status.done ? undefined : successes.get(status.value)![0]
      const payload = endpoint.payload.values().next()
      const payloadSchema = payload.done ? undefined : payload.value.schemas[0] as AnySchema
      routes.push({
        name: endpoint.identifier,
        method: endpoint.method,
        path: endpoint.path,
        template: `${endpoint.method} ${endpoint.path.replace(/:(\w+)/g, "{$1}")}`,
        successStatus: status.done ? 200 : status.value,
        hasPayload: payloadSchema !== undefined,
        decodePath: endpoint.params !== undefined ? decoder(endpoint.params as AnySchema, "path parameter") : undefined,
        decodeQuery: endpoint.query !== undefined ? queryDecoder(endpoint.query as AnySchema) : undefined,
        decodePayload: payloadSchema !== undefined ? decoder(payloadSchema, "body") : undefined,
        encode: success === undefined || HttpApiSchema.isNoContent(success.ast) ? NO_CONTENT : encoder(success as AnySchema),
        handler
      })
    }
  })
  return routes
}

/**
 * The success value as `schema` encodes it, as JSON text. A reply is made by the services from
 * values they already hold as decoded (stored, or just decoded from the request): its checks are
 * not run again (`disableChecks`), only its encoding.
 */
export const encoder = (schema: AnySchema): (value: unknown) => string => {
  const encode = Schema.encodeSync(schema, { disableChecks: true })
  return (value) => JSON.stringify(encode(value))
}

/** A route found for a request: the compiled route (`handler`), the path's parameters and the query's. */
export type Found<Ctx = any, Err = OperationError> = FindMyWay.FindResult<CompiledRoute<Ctx, Err>>

/** A router over compiled routes that also knows which methods a path allows (for 405). */
export interface RouteTable<Ctx, Err> {
  readonly find: (method: string, url: string) => Found<Ctx, Err> | undefined
  /** The `Allow` value of a path that exists with other methods, if it does. */
  readonly allowed: (url: string) => string | undefined
}

// Paths match exactly as declared: `/v1/PETS` and `/v1/pets/` are other (unknown) routes.
const EXACT = { caseSensitive: true, ignoreTrailingSlash: false } as const

export const table = <Ctx, Err>(routes: ReadonlyArray<CompiledRoute<Ctx, Err>>): RouteTable<Ctx, Err> => {
  const router = FindMyWay.make<CompiledRoute<Ctx, Err>>(EXACT)
  const byPath = new Map<string, Set<string>>()
  for (const route of routes) {
    const methods = route.method === "GET" ? ["GET", "HEAD"] : [route.method]
    router.on(methods, route.path as FindMyWay.PathInput, route)
    const set = byPath.get(route.path) ?? new Set<string>()
    for (const m of methods) set.add(m)
    byPath.set(route.path, set)
  }
  const methods = FindMyWay.make<string>(EXACT)
  for (const [path, set] of byPath) methods.all(path as FindMyWay.PathInput, [...set].join(", "))
  // An empty segment never names a resource: `/v1/pets/` is not `/v1/pets/{petId}` with an empty id.
  const hasEmptyParam = (params: Record<string, string | undefined>) => {
    for (const key in params) if (!params[key]) return true
    return false
  }
  return {
    find: (method, url) => {
      const found = router.find(method, url)
      return found === undefined || hasEmptyParam(found.params) ? undefined : found
    },
    allowed: (url) => {
      const found = methods.find("GET", url)
      return found === undefined || hasEmptyParam(found.params) ? undefined : found.handler
    }
  }
}

/** The order methods are listed in (`Allow`): reads first, then writes, as RFC 9110 lists them (PATCH with the writes). */
const METHOD_ORDER: ReadonlyArray<string> = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

/**
 * The methods the endpoints of `apis` answer, HEAD wherever GET (as `table` routes them), in the
 * order of `METHOD_ORDER`: what a server serving them says it allows (the 405 to CONNECT).
 */
export const methods = (apis: ReadonlyArray<HttpApi.HttpApi<string, any>>): ReadonlyArray<string> => {
  const used = new Set<string>()
  for (const api of apis) {
    HttpApi.reflect(api as unknown as HttpApi.HttpApi<string, HttpApiGroup.Top>, {
      onGroup: () => {},
      onEndpoint: ({ endpoint }) => {
        used.add(endpoint.method)
        if (endpoint.method === "GET") used.add("HEAD")
      }
    })
  }
  return METHOD_ORDER.filter((method) => used.has(method))
}
