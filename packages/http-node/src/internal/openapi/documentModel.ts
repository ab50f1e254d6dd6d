/**
 * The OpenAPI document's shape: plain JSON, so it can be served with JSON.stringify as is. The
 * document's modules all read it from here; `OpenApiDocument` exports it.
 */

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
