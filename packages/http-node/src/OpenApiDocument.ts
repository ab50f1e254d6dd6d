/**
 * The OpenAPI 3.0.3 document of the public interface. It is derived from the `HttpApi` (never a
 * hand-written copy of the paths) and corrects what `OpenApi.fromApi` emits on the 3.x line: the 3.1
 * dialect (`internal/openapi/openApiSchema.ts`), the framework's decode-error body and the missing response
 * headers (`internal/openapi/openApiOperation.ts`, `internal/openapi/openApiHeaders.ts`), tags, prose
 * (`internal/openapi/openApiDescriptions.ts`) and security.
 *
 * @since 1.0.0
 */
import type * as HttpApi from "effect/http-api/HttpApi"
import * as OpenApi from "effect/http-api/OpenApi"
import type * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import { asJson } from "./internal/json.js"
import * as OpenApiHeaders from "./internal/openapi/openApiHeaders.js"
import * as OpenApiParameters from "./internal/openapi/openApiParameters.js"
import * as OpenApiOperation from "./internal/openapi/openApiOperation.js"
import * as OpenApiSchema from "./internal/openapi/openApiSchema.js"
import { DECLARED_TAGS, describe } from "./internal/openapi/openApiDescriptions.js"

/** The keys of an OpenAPI path item that are operations (the others are its parameters, summary ...). */
const HTTP_METHODS: ReadonlySet<string> = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"])

// ---------------------------------------------------------------------------------------------
// The document's shape: plain JSON, so it can be served with JSON.stringify as is.
// ---------------------------------------------------------------------------------------------

/** A JSON value. @category models */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject

/** A JSON object; schemas are kept as such. @category models */
export type JsonObject = { readonly [key: string]: Json }

/** A `$ref` to a component of the document. @category models */
export type Reference = { readonly $ref: string }

/** A base URL the interface is served at, with what it is (production, staging). @category models */
export type Server = { readonly url: string; readonly description: string }

/** A group of operations, with its description. @category models */
export type Tag = { readonly name: string; readonly description?: string }

/** A header component: what it means, whether each response listing it sends it, its schema. @category models */
export type Header = {
  readonly description: string
  readonly required?: boolean
  readonly schema: JsonObject
  readonly example?: Json
}

/** A path, query, header or cookie parameter of an operation. @category models */
export type Parameter = {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly required: boolean
  readonly description?: string
  readonly schema: JsonObject
}

/** A body by media type, with its schema. @category models */
export type Content = { readonly [contentType: string]: { readonly schema: JsonObject } }

/** One response of an operation: its headers (as references) and its body, when it has one. @category models */
export type Response = {
  readonly description: string
  readonly headers: { readonly [name: string]: Reference }
  readonly content?: Content
}

/** The security schemes (with scopes) a request must satisfy together. @category models */
export type SecurityRequirement = { readonly [scheme: string]: ReadonlyArray<string> }

/** One operation: its id, tags, prose, input, responses and security. @category models */
export type Operation = {
  readonly operationId: string
  readonly tags: ReadonlyArray<string>
  readonly summary?: string
  readonly description?: string
  readonly deprecated?: boolean
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly required: boolean; readonly content: Content }
  readonly responses: { readonly [status: string]: Response }
  /** Absent only when the API declares no security at all (never the empty list, which means "no auth"). */
  readonly security?: ReadonlyArray<SecurityRequirement>
  /** Vendor extensions, such as `x-stability`. */
  readonly [extension: `x-${string}`]: Json
}

/** The HTTP methods a path item can hold. @category models */
export type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace"

/** The operations of one path, by method. @category models */
export type PathItem = { readonly [M in Method]?: Operation }

/** How a request authenticates (`bearerAuth`: an API key as a bearer token). @category models */
export type SecurityScheme = {
  readonly type: string
  readonly description?: string
  readonly scheme?: string
  readonly bearerFormat?: string
  readonly name?: string
  readonly in?: string
}

/** The whole document, as served at `/v1/openapi.json`. @category models */
export type OpenApiDocument = {
  readonly openapi: "3.0.3"
  readonly info: {
    readonly title: string
    readonly version: string
    readonly description: string
    readonly contact: { readonly name: string; readonly url: string }
    readonly license?: { readonly name: string; readonly url?: string }
  }
  readonly servers: ReadonlyArray<Server>
  /**
   * The security every operation requires, when they all require the same (the API key): said at
   * the root too, so readers of the document (the `/docs` page's introduction among them) show
   * authentication as required rather than optional.
   */
  readonly security?: ReadonlyArray<SecurityRequirement>
  readonly tags: ReadonlyArray<Tag>
  readonly paths: { readonly [path: string]: PathItem }
  readonly components: {
    readonly schemas: { readonly [name: string]: JsonObject }
    readonly headers: { readonly [name: string]: Header }
    readonly securitySchemes: { readonly [name: string]: SecurityScheme }
  }
}

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

/** Where questions about the interface go: the project's issue tracker. */
const CONTACT = { name: "Pet Store Service", url: "https://github.com/petstore-service/petstore/issues" }

/**
 * Builds the OpenAPI 3.0.3 document of `api`. Pure: the same input gives an equal document, and the
 * (cached, shared) output of `OpenApi.fromApi` is never mutated. Call it once at start-up.
 *
 * @category constructors
 * @since 1.0.0
 */
export const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(options: {
  readonly api: HttpApi.HttpApi<Id, Groups>
  readonly servers: ReadonlyArray<Server>
}): OpenApiDocument => {
  const source = OpenApi.fromApi(options.api)
  const schemas = OpenApiSchema.components(source.components.schemas)
  const declared = OpenApiHeaders.declaredByRoute(options.api)
  const shared: OpenApiOperation.Shared = {
    declared: declared.headers,
    parameters: OpenApiParameters.byRoute(options.api, schemas),
    successSchema: OpenApiSchema.referencing(schemas),
    apiSecurity: source.security.filter((requirement) => Object.keys(requirement).length > 0)
  }

  const paths: { readonly [path: string]: PathItem } = Object.fromEntries(
    Object.entries(source.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).flatMap(([method, op]) =>
          op === undefined || !HTTP_METHODS.has(method) ? [] : [[method, OpenApiOperation.make(shared, path, method, op as OpenApi.OpenAPISpecOperation)]]
        )
      )
    ])
  )

  const ownTags = new Map(source.tags.map((tag) => [tag.name, tag]))
  const tags: ReadonlyArray<Tag> = [
    ...source.tags.map((tag): Tag => {
      const description = tag.description ?? DECLARED_TAGS.find((t) => t.name === tag.name)?.description
      return description === undefined ? { name: tag.name } : { name: tag.name, description }
    }),
    ...DECLARED_TAGS.filter((tag) => !ownTags.has(tag.name))
  ]

  const securities = new Set(Object.values(paths).flatMap((item) => Object.values(item).map((op) => JSON.stringify(op.security ?? []))))
  const [common] = securities
  const security: ReadonlyArray<SecurityRequirement> | undefined = securities.size === 1 && common !== "[]"
    ? JSON.parse(common!)
    : undefined

  const intro = [source.info.summary, source.info.description].filter((s): s is string => s !== undefined)
  return {
    openapi: "3.0.3",
    info: {
      title: source.info.title,
      version: source.info.version,
      description: describe(intro, paths, declared.deprecations),
      contact: CONTACT,
      ...(source.info.license === undefined ? {} : { license: source.info.license })
    },
    servers: options.servers.map(({ description, url }) => ({ url, description })),
    ...(security === undefined ? {} : { security }),
    tags,
    paths,
    components: {
      schemas: OpenApiSchema.reachable(schemas, [asJson(paths), OpenApiSchema.ERROR_REF]),
      headers: OpenApiHeaders.components(asJson(paths), declared.deprecations.values().next().value),
      // HTTP auth scheme names are case-insensitive (RFC 9110); written in lower case, as the registry lists them.
      securitySchemes: Object.fromEntries(Object.entries(source.components.securitySchemes).map(([name, scheme]) => [
        name,
        "scheme" in scheme && typeof scheme.scheme === "string" ? { ...scheme, scheme: scheme.scheme.toLowerCase() } : scheme
      ]))
    }
  }
}
