/**
 * The response headers of the OpenAPI document: what each header means, and on which responses it
 * is sent always (`required: true`) or only sometimes. The rules follow the order in which the
 * application answers (see App.ts): authentication and the rate limiter run first and write the
 * rate-limit headers, then routing adds an operation's own headers; only a 5xx can come before
 * the limiter (a store that cannot be reached to check the key, a defect), and the HTTP layer's
 * own refusals (the `default` response) come before everything.
 *
 * @internal
 */
import * as HttpApi from "effect/http-api/HttpApi"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as Context from "effect/Context"
import { ResponseHeaders } from "../operations/endpoint.js"
import type { Header, Json, Reference } from "./documentModel.js"
import * as Lifecycle from "../operations/lifecycle.js"
import { refsUnder } from "../json.js"

/** Where header components live; a `$ref` to one starts with it. */
const COMPONENTS = "#/components/headers/"

const BEFORE_LIMITER = "Absent when the failure came before the rate limiter decided (the store could not be " +
  "reached to check the key, or an unexpected error)."
const BEFORE_ROUTING = "Absent when the failure came before the request was routed to this operation."

/**
 * Every header the document can reference, by component name, as sent always. `whenAbsent` says
 * when it is missing from the responses that send it only sometimes (its optional variant).
 */
const HEADERS = {
  "X-RateLimit-Limit": {
    description: "Requests admitted per window by the limit closest to exhaustion (per minute or per day).",
    schema: { type: "integer", minimum: 0 },
    example: 60,
    whenAbsent: BEFORE_LIMITER
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in that limit's current window.",
    schema: { type: "integer", minimum: 0 },
    example: 59,
    whenAbsent: BEFORE_LIMITER
  },
  "X-RateLimit-Reset": {
    description: "Unix time, in whole seconds since the epoch, at which that limit is back to full.",
    schema: { type: "integer", format: "int64", minimum: 0 },
    example: 1767225660,
    whenAbsent: BEFORE_LIMITER
  },
  "RateLimit-Policy": {
    description: "Every limit that applies (per minute and per day) with its quota and window, as a " +
      "structured field of draft-ietf-httpapi-ratelimit-headers.",
    schema: { type: "string" },
    example: "\"minute\";q=60;w=60, \"day\";q=1000;w=86400",
    whenAbsent: BEFORE_LIMITER
  },
  "RateLimit": {
    description: "What is left of each limit and when it is back to full, as a structured field of " +
      "draft-ietf-httpapi-ratelimit-headers.",
    schema: { type: "string" },
    example: "\"minute\";r=59;t=1, \"day\";r=999;t=86400",
    whenAbsent: BEFORE_LIMITER
  },
  "Retry-After": {
    description: "Seconds to wait before retrying (whole seconds, rounded up, at least 1).",
    schema: { type: "integer", minimum: 1 },
    example: 1,
    whenAbsent: "Sent when the server holds as many connections as it may; absent when the store cannot be reached."
  },
  "X-Request-Id": {
    description: "The request's id: the `X-Request-Id` the request carried when it is 1 to 128 characters of " +
      "`A-Z a-z 0-9 . _ ~ : / + = -`, otherwise a new random UUID. Quote it when reporting a problem.",
    schema: { type: "string", minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9._~:/+=-]+$" },
    example: "5f0c6a6e-3b8a-4f6e-9d43-2a1b7c9e8f10",
    whenAbsent: "Absent only on a 500 that a host embedding the service answers itself."
  },
  "WWW-Authenticate": {
    description: "The authentication scheme to use (RFC 6750).",
    schema: { type: "string" },
    example: "Bearer realm=\"petstore\""
  },
  "Location": {
    description: "Path of the created or accepted resource.",
    schema: { type: "string", format: "uri-reference" },
    example: "/v1/pets/1"
  },
  "Link-Next-Page": {
    description: "RFC 8288 link to the next page, `rel=\"next\"`, present exactly when more results exist " +
      "(path-absolute; its `cursor` parameter continues the listing).",
    schema: { type: "string" },
    example: "</v1/pets?limit=20&cursor=abc>; rel=\"next\"",
    whenAbsent: "Absent on the last page."
  },
  "Link-Successor": {
    description: "RFC 8288 links to the operation that replaces this deprecated one (`rel=\"successor-version\"`) " +
      "and to its deprecation notice (`rel=\"deprecation\"`).",
    schema: { type: "string" },
    example: "",
    whenAbsent: BEFORE_ROUTING
  },
  "Deprecation": {
    description: "RFC 9745: when the operation was deprecated, as a structured date (epoch seconds).",
    schema: { type: "string" },
    example: "",
    whenAbsent: BEFORE_ROUTING
  },
  "Idempotent-Replayed": {
    description: "`true` when the answer is the kept answer of an earlier request with the same `Idempotency-Key` " +
      "(the same status, body and `Location`); nothing was created by this request.",
    schema: { type: "string", enum: ["true"] },
    example: "true",
    whenAbsent: "Absent when this request carried the operation out (or sent no `Idempotency-Key`)."
  },
  "Sunset": {
    description: "RFC 8594: when the operation is removed; from then on it answers 410.",
    schema: { type: "string" },
    example: "",
    whenAbsent: BEFORE_ROUTING
  }
} as const satisfies Record<string, Omit<Header, "required"> & { readonly whenAbsent?: string }>

type HeaderName = keyof typeof HEADERS

/** Response headers an endpoint declares besides the rate-limit ones (Api.ts's `ResponseHeaders`). */
export type DeclaredHeader = ResponseHeaders["Service"][number]

/** The key of an operation in `declaredByRoute`: its method and its path as the document writes it. */
export const routeKey = (method: string, path: string): string => `${method.toLowerCase()} ${path}`

/** What the endpoints of an API declare for the document: their own response headers, and their deprecations. */
export interface Declared {
  /** The `ResponseHeaders` annotation of every endpoint, by `routeKey`. */
  readonly headers: ReadonlyMap<string, ReadonlyArray<DeclaredHeader>>
  /** The `Deprecated` annotation of each deprecated endpoint, by its method and path as the document writes them (`GET /v1/pets/{petId}`). */
  readonly deprecations: ReadonlyMap<string, Lifecycle.Deprecation>
}

/** What the endpoints of `api` declare. */
export const declaredByRoute = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): Declared => {
  const headers = new Map<string, ReadonlyArray<DeclaredHeader>>()
  const deprecations = new Map<string, Lifecycle.Deprecation>()
  HttpApi.reflect(api as unknown as HttpApi.HttpApi<string, HttpApiGroup.Top>, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      // The same path rewrite as `OpenApi.fromApi`.
      const path = endpoint.path.replace(/:(\w+)\??/g, "{$1}")
      headers.set(routeKey(endpoint.method, path), Context.getOrElse(mergedAnnotations, ResponseHeaders, () => []))
      const deprecation = Context.getOption(mergedAnnotations, Lifecycle.Deprecated)
      if (deprecation._tag === "Some") deprecations.set(`${endpoint.method} ${path}`, deprecation.value)
    }
  })
  return { headers, deprecations }
}

/** One header of one response: its name on the wire and the header component describing it. */
interface ResponseHeader {
  readonly name: string
  readonly component: string
}

const OPTIONAL = ".Optional"

const always = (name: string, header: HeaderName = name as HeaderName): ResponseHeader => ({ name, component: header })
const sometimes = (name: string, header: HeaderName = name as HeaderName): ResponseHeader => ({
  name,
  component: header + OPTIONAL
})

const RATE_LIMIT_HEADERS = [
  "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"
] as const satisfies ReadonlyArray<HeaderName>

/**
 * The headers of the response with `status` of an operation declaring `declared`. Every answer
 * below 500 comes after the rate limiter (a 401 and its 429 with the client address's bucket), so
 * it carries the rate-limit headers, except the 403 of a suspended account, refused before the
 * limiter counts it; a 401, 403 or 429 comes before routing, so it never carries an operation's own
 * headers. `Link` next to `Deprecation` points to the replacement; otherwise it is
 * the pagination link of a success.
 */
const forResponse = (status: number, declared: ReadonlyArray<DeclaredHeader>): ReadonlyArray<ResponseHeader> => {
  const limited = status < 500 ? always : sometimes
  const routed = status === 401 || status === 403 || status === 429 ? undefined : limited
  const deprecation = declared.includes("Deprecation")
  return [
    ...(status === 403 ? [] : RATE_LIMIT_HEADERS.map((name) => limited(name))),
    limited("X-Request-Id"),
    ...(status === 401 ? [always("WWW-Authenticate")] : []),
    ...(status === 429 || status === 409 ? [always("Retry-After")] : status === 503 ? [sometimes("Retry-After")] : []),
    ...declared.flatMap((name): ReadonlyArray<ResponseHeader> => {
      switch (name) {
        case "Location":
          return status === 201 || status === 202 ? [always(name)] : []
        case "Idempotent-Replayed":
          return status === 201 || status === 202 ? [sometimes(name)] : []
        case "Deprecation":
        case "Sunset":
          return routed === undefined ? [] : [routed(name)]
        case "Link":
          return deprecation
            ? routed === undefined ? [] : [routed(name, "Link-Successor")]
            : status >= 200 && status < 300
            ? [sometimes(name, "Link-Next-Page")]
            : []
      }
    })
  ]
}

/** The `headers` of the response with `status` of an operation declaring `declared`: references to their components. */
export const responseHeaders = (
  status: number,
  declared: ReadonlyArray<DeclaredHeader>
): { readonly [name: string]: Reference } =>
  Object.fromEntries(forResponse(status, declared).map(({ component, name }) => [name, { $ref: `${COMPONENTS}${component}` }]))

/** The `headers` of the `default` response: the HTTP layer's own answers carry the request's id too (and nothing else of the rate limiter's). */
export const DEFAULT_RESPONSE_HEADERS: { readonly [name: string]: Reference } = {
  "X-Request-Id": { $ref: `${COMPONENTS}X-Request-Id` }
}

/** The examples of a deprecated operation's headers: what the first one declared sends at the root. */
const deprecationExamples = (deprecation: Lifecycle.Deprecation | undefined): Partial<Record<HeaderName, string>> => {
  if (deprecation === undefined) return {}
  const sent = Lifecycle.headers(deprecation, "")
  return { "Link-Successor": sent.Link, "Deprecation": sent.Deprecation, "Sunset": sent.Sunset }
}

/**
 * The header components `paths` refers to, by name, each as always or sometimes sent; the examples
 * of the deprecation headers are those of `deprecation`, the document's deprecated operation.
 */
export const components = (paths: Json, deprecation: Lifecycle.Deprecation | undefined): { readonly [component: string]: Header } => {
  const used = new Set(refsUnder(COMPONENTS, paths))
  const examples = deprecationExamples(deprecation)
  return Object.fromEntries(
    Object.entries(HEADERS).flatMap(([name, declared]): ReadonlyArray<readonly [string, Header]> => {
      const example = examples[name as HeaderName]
      const header = example === undefined ? declared : { ...declared, example }
      const { whenAbsent, ...rest } = header as typeof header & { readonly whenAbsent?: string }
      return [
        ...(used.has(name) ? [[name, { ...rest, required: true }] as const] : []),
        ...(used.has(name + OPTIONAL)
          ? [[name + OPTIONAL, { ...rest, description: `${rest.description} ${whenAbsent ?? ""}`.trim() }] as const]
          : [])
      ]
    })
  )
}
