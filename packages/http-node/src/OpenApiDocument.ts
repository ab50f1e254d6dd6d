/**
 * The OpenAPI 3.0.3 document of the public interface. It is derived from the `HttpApi` (never a
 * hand-written copy of the paths) and corrects what `OpenApi.fromApi` emits on the 3.x line: the 3.1
 * dialect, the framework's decode-error body, the missing response headers and tags, and security.
 *
 * @since 1.0.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import * as OpenApiJsonSchema from "@effect/platform/OpenApiJsonSchema"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { ErrorBody } from "@petstore/core"
import * as Context from "effect/Context"
import { ResponseHeaders } from "./Api.js"
import { ERROR_CODES } from "./ErrorCodes.js"
import * as OpenApiHeaders from "./internal/openApiHeaders.js"
import { DECLARED_TAGS, describe } from "./OpenApiDescriptions.js"

// ---------------------------------------------------------------------------------------------
// The document's shape: plain JSON, so it can be served with JSON.stringify as is.
// ---------------------------------------------------------------------------------------------

/** @category models */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject

/** A JSON object; schemas are kept as such. @category models */
export type JsonObject = { readonly [key: string]: Json }

/** @category models */
export type Reference = { readonly $ref: string }

/** @category models */
export type Server = { readonly url: string; readonly description: string }

/** @category models */
export type Tag = { readonly name: string; readonly description?: string }

/** @category models */
export type Header = {
  readonly description: string
  readonly required?: boolean
  readonly schema: JsonObject
  readonly example?: Json
}

/** @category models */
export type Parameter = {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly required: boolean
  readonly description?: string
  readonly schema: JsonObject
}

/** @category models */
export type Content = { readonly [contentType: string]: { readonly schema: JsonObject } }

/** @category models */
export type Response = {
  readonly description: string
  readonly headers: { readonly [name: string]: Reference }
  readonly content?: Content
}

/** @category models */
export type SecurityRequirement = { readonly [scheme: string]: ReadonlyArray<string> }

/** @category models */
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

/** @category models */
export type Method = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace"

/** @category models */
export type PathItem = { readonly [M in Method]?: Operation }

/** @category models */
export type SecurityScheme = {
  readonly type: string
  readonly description?: string
  readonly scheme?: string
  readonly bearerFormat?: string
  readonly name?: string
  readonly in?: string
}

/** @category models */
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
  readonly tags: ReadonlyArray<Tag>
  readonly paths: { readonly [path: string]: PathItem }
  readonly components: {
    readonly schemas: { readonly [name: string]: JsonObject }
    readonly headers: { readonly [name: string]: Header }
    readonly securitySchemes: { readonly [name: string]: SecurityScheme }
  }
}

// ---------------------------------------------------------------------------------------------
// JSON Schema 2020-12 (OpenAPI 3.1) → OpenAPI 3.0.3 Schema Object
// ---------------------------------------------------------------------------------------------

const SCHEMAS = "#/components/schemas/"

/** The Error schema with `code` one of the stable codes (the core types it as a string; the codes are HTTP's). */
const withCodeEnum = (error: JsonObject): JsonObject => {
  const properties = error.properties as JsonObject
  return {
    ...error,
    properties: { ...properties, code: { ...(properties.code as JsonObject), enum: Object.keys(ERROR_CODES) } }
  }
}

/** The keywords of a 3.0.3 Schema Object kept; anything else (`$id`, `$defs`, `if` ...) is dropped, and so is `title`: Effect's refinements title their schemas (`"int"`), which generators turn into type names. */
const SCHEMA_KEYWORDS_30: ReadonlySet<string> = new Set([
  "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
  "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties",
  "required", "enum", "type", "not", "allOf", "oneOf", "anyOf", "items", "properties",
  "additionalProperties", "description", "format", "default", "nullable", "discriminator", "readOnly",
  "writeOnly", "example", "externalDocs", "deprecated", "xml", "$ref"
])

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

const asJson = (u: unknown): Json => u as Json

const jsonEqual = (a: Json | undefined, b: Json | undefined): boolean => {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]))
  }
  return false
}

const omit = (o: JsonObject, key: string): JsonObject => {
  const { [key]: _, ...rest } = o
  return rest
}

const mapValues = <A, B>(o: { readonly [k: string]: A }, f: (a: A) => B): { [k: string]: B } =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]))

/** A schema that admits only `null` once converted (3.0 has no `null` type). */
const isNullOnly = (s: JsonObject): boolean =>
  s.nullable === true && jsonEqual(s.enum, [null]) &&
  Object.keys(s).every((k) => k === "nullable" || k === "enum" || k === "description" || k === "title")

const anyOfOrOne = (members: ReadonlyArray<JsonObject>): JsonObject =>
  members.length === 1 ? members[0]! : { anyOf: members }

/**
 * Converts one schema. Children are converted first, so a parent sees 3.0 children only
 * (a converted `{type:"null"}` branch is `{nullable:true, enum:[null]}`).
 */
const toSchema30 = (input: Json | undefined): JsonObject => {
  if (input === false) return { not: {} }
  if (!isObject(input)) return {}
  const out: Record<string, Json> = {}
  let nullable = input.nullable === true
  let typeUnion: ReadonlyArray<JsonObject> = []
  for (const [key, value] of Object.entries(input)) {
    switch (key) {
      case "$ref":
        out.$ref = typeof value === "string" ? value.replace(/^#\/(\$defs|definitions)\//, SCHEMAS) : value
        break
      case "type": {
        const types = (Array.isArray(value) ? value : [value]).filter((t) => t !== "null")
        if (types.length < (Array.isArray(value) ? value.length : 1)) nullable = true
        if (types.length === 0) out.enum = [null]
        else if (types.length === 1) out.type = types[0]!
        else typeUnion = types.map((type) => ({ type }))
        break
      }
      case "const":
        out.enum = [value]
        if (value === null) nullable = true
        break
      case "enum":
        if (Array.isArray(value) && value.length > 0) {
          out.enum = value
          if (value.includes(null)) nullable = true
        } else out.not = {}
        break
      case "examples":
        if (Array.isArray(value) && value.length > 0 && !("example" in input)) out.example = value[0]!
        break
      case "exclusiveMinimum":
      case "exclusiveMaximum":
        if (typeof value === "boolean") out[key] = value
        break // numeric (3.1) forms are folded into minimum/maximum below
      case "properties":
        if (isObject(value)) out.properties = mapValues(value, toSchema30)
        break
      case "items":
        if (Array.isArray(input.prefixItems)) break // handled with `prefixItems`
        if (Array.isArray(value)) out.items = anyOfOrOne(value.map(toSchema30))
        else if (isObject(value)) out.items = toSchema30(value)
        break
      case "prefixItems":
        if (Array.isArray(value)) {
          const rest = isObject(input.items) ? [input.items] : []
          out.items = anyOfOrOne([...value, ...rest].map(toSchema30))
        }
        break
      case "additionalProperties":
        // `true` is the default; written out, generators turn the object into a free-form map
        // (Java's `extends HashMap`, TypeScript's `[key: string]: any`) instead of a plain type.
        if (value !== true) out.additionalProperties = typeof value === "boolean" ? value : toSchema30(value)
        break
      case "patternProperties":
        // 3.0 cannot constrain key names; keep the value schemas, lose the key patterns.
        if (isObject(value) && !("additionalProperties" in input)) {
          out.additionalProperties = anyOfOrOne(Object.values(value).map(toSchema30))
        }
        break
      case "not":
        out.not = toSchema30(value)
        break
      case "allOf":
      case "anyOf":
      case "oneOf":
        if (Array.isArray(value)) out[key] = value.map(toSchema30)
        break
      case "required":
        if (Array.isArray(value) && value.length > 0) out.required = value
        break
      case "contentEncoding":
        if (value === "base64" && !("format" in input)) out.format = "byte"
        break
      default:
        if (SCHEMA_KEYWORDS_30.has(key) || key.startsWith("x-")) out[key] = value
    }
  }
  foldExclusiveBound(out, "minimum", "exclusiveMinimum", input.exclusiveMinimum, (a, b) => a > b)
  foldExclusiveBound(out, "maximum", "exclusiveMaximum", input.exclusiveMaximum, (a, b) => a < b)
  if (out.type === "array" && !("items" in out)) out.items = {}
  // `type: ["string", "number"]` is a union; next to an `anyOf` of its own it must hold as well.
  if (typeUnion.length > 0) {
    if (out.anyOf === undefined) out.anyOf = typeUnion
    else out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), { anyOf: typeUnion }]
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const members = out[key]
    if (!Array.isArray(members)) continue
    const rest = (members as ReadonlyArray<JsonObject>).filter((m) => !isNullOnly(m))
    if (rest.length === members.length) continue
    nullable = true
    delete out[key]
    if (rest.length === 0) out.enum = [null]
    else if (rest.length > 1) out[key] = rest
    else if ("$ref" in rest[0]!) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), rest[0]!]
    else Object.assign(out, { ...rest[0]!, ...out })
  }
  if (nullable) out.nullable = true
  // In 3.0 the siblings of `$ref` are ignored; wrapping the reference keeps their meaning.
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out
    return { allOf: [{ $ref }], ...siblings }
  }
  return out
}

/** 3.1's numeric `exclusiveMinimum: n` is 3.0's `minimum: n, exclusiveMinimum: true`; the stricter bound wins. */
const foldExclusiveBound = (
  out: Record<string, Json>,
  bound: "minimum" | "maximum",
  exclusive: "exclusiveMinimum" | "exclusiveMaximum",
  value: Json | undefined,
  stricter: (a: number, b: number) => boolean
): void => {
  if (typeof value !== "number") return
  const inclusive = out[bound]
  if (typeof inclusive === "number" && stricter(inclusive, value)) return
  out[bound] = value
  out[exclusive] = true
}

const HEADERS = "#/components/headers/"


// ---------------------------------------------------------------------------------------------
// Contact and the default response
// ---------------------------------------------------------------------------------------------

/** Where questions about the interface go: the project's issue tracker. */
const CONTACT = { name: "Pet Store Service", url: "https://github.com/petstore-service/petstore/issues" }

/** Codes the HTTP layer answers with before a request reaches any operation. */
const HTTP_LAYER_CODES = ["invalid_request", "request_timeout", "expectation_failed", "headers_too_large"] as const

/** The `default` response of every operation: a status it does not list still has the Error body. */
const DEFAULT_DESCRIPTION = "Any other status, with the Error body. The HTTP layer answers some requests before " +
  "they reach the operation, without rate-limit headers: " +
  HTTP_LAYER_CODES.map((code) => `${ERROR_CODES[code].status} \`${code}\``).join(", ") + "."

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

const routeKey = (method: string, path: string): string => `${method.toLowerCase()} ${path}`

/** The `ResponseHeaders` annotation of every endpoint, keyed like the document's operations. */
const declaredHeaders = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): ReadonlyMap<string, ReadonlyArray<OpenApiHeaders.DeclaredHeader>> => {
  const byRoute = new Map<string, ReadonlyArray<OpenApiHeaders.DeclaredHeader>>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      // The same path rewrite as `OpenApi.fromApi`.
      const path = endpoint.path.replace(/:(\w+)\??/g, "{$1}")
      byRoute.set(routeKey(endpoint.method, path), Context.getOrElse(mergedAnnotations, ResponseHeaders, () => []))
    }
  })
  return byRoute
}

const DECODE_ERROR = `${SCHEMAS}HttpApiDecodeError`

/**
 * A response the framework adds to every operation (its decode error) that the endpoint itself does
 * not declare: the server never sends it, so the document leaves it out.
 */
const onlyDecodeError = (response: OpenApi.OpenApiSpecResponse): boolean => {
  const schemas = Object.values(response.content ?? {}).map((media) => asJson(media.schema))
  return schemas.length > 0 && schemas.every((s) => isObject(s) && s.$ref === DECODE_ERROR)
}

/** The description of an error response, preferring the endpoint's own over the framework's decode error. */
const errorDescription = (response: OpenApi.OpenApiSpecResponse): string => {
  const schemas = Object.values(response.content ?? {}).map((media) => asJson(media.schema))
  const own = schemas
    .flatMap((s) => isObject(s) && Array.isArray(s.anyOf) ? s.anyOf : [s])
    .find((s) => isObject(s) && s.$ref !== DECODE_ERROR && typeof s.description === "string")
  if (isObject(own) && typeof own.description === "string") return own.description
  const onlyDecodeError = schemas.length > 0 && schemas.every((s) => isObject(s) && s.$ref === DECODE_ERROR)
  return onlyDecodeError ? ERROR_CODES.invalid_request.description : response.description
}

const content = (source: OpenApi.OpenApiSpecContent, schemaOf: (schema: JsonObject) => JsonObject): Content =>
  mapValues(source as Record<string, OpenApi.OpenApiSpecMediaType>, (media) => ({
    schema: schemaOf(toSchema30(asJson(media.schema)))
  }))

/** `$ref`s to component schemas anywhere in `json`. */
const schemaRefs = (json: Json | undefined): ReadonlyArray<string> =>
  Array.isArray(json)
    ? json.flatMap(schemaRefs)
    : isObject(json)
    ? Object.entries(json).flatMap(([k, v]) =>
      k === "$ref" && typeof v === "string" && v.startsWith(SCHEMAS) ? [v.slice(SCHEMAS.length)] : schemaRefs(v)
    )
    : []

/** The component schemas reachable from `roots`, in the components' order. */
const reachable = (
  schemas: { readonly [name: string]: JsonObject },
  roots: ReadonlyArray<Json>
): { readonly [name: string]: JsonObject } => {
  const seen = new Set<string>()
  const queue = roots.flatMap(schemaRefs)
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name) || schemas[name] === undefined) continue
    seen.add(name)
    queue.push(...schemaRefs(schemas[name]))
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => seen.has(name)))
}

/**
 * Builds the OpenAPI 3.0.3 document of `api`. Pure: the same input gives an equal document, and the
 * (cached, shared) output of `OpenApi.fromApi` is never mutated. Call it once at start-up.
 *
 * @category constructors
 * @since 1.0.0
 */
export const make = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(options: {
  readonly api: HttpApi.HttpApi<Id, Groups, E, R>
  readonly servers: ReadonlyArray<Server>
}): OpenApiDocument => {
  const source = OpenApi.fromApi(options.api, { additionalPropertiesStrategy: "allow" })
  const declared = declaredHeaders(options.api)

  const errorDefs: Record<string, unknown> = {}
  const errorSchema = toSchema30(asJson(OpenApiJsonSchema.makeWithDefs(ErrorBody.ErrorBody, {
    defs: errorDefs,
    topLevelReferenceStrategy: "skip",
    additionalPropertiesStrategy: "allow"
  })))
  const allSchemas: { readonly [name: string]: JsonObject } = {
    ...mapValues({ ...source.components.schemas, ...errorDefs }, (s) => toSchema30(asJson(s))),
    Error: withCodeEnum(errorSchema)
  }
  const errorRef: Reference = { $ref: `${SCHEMAS}Error` }

  // A success schema equal to a component but for its description becomes a reference to it.
  const named = Object.entries(allSchemas)
  const referenced = (schema: JsonObject): JsonObject => {
    const bare = omit(schema, "description")
    const match = named.find(([, component]) => jsonEqual(omit(component, "description"), bare))
    return match === undefined ? schema : { $ref: `${SCHEMAS}${match[0]}` }
  }

  // The HTTP layer's own answers carry the request's id too (and nothing else of the rate limiter's).
  const defaultResponse: Response = {
    description: DEFAULT_DESCRIPTION,
    headers: { "X-Request-Id": { $ref: `${HEADERS}X-Request-Id` } },
    content: { "application/json": { schema: errorRef } }
  }

  const apiSecurity = source.security.filter((requirement) => Object.keys(requirement).length > 0)
  const usedHeaders = new Set<string>(["X-Request-Id"])

  const operation = (path: string, method: string, op: OpenApi.OpenAPISpecOperation): Operation => {
    const headers = declared.get(routeKey(method, path)) ?? []
    const security = op.security.filter((requirement) => Object.keys(requirement).length > 0)
    const responses = Object.entries(op.responses as Record<string, OpenApi.OpenApiSpecResponse>).filter(
      ([, response]) => !onlyDecodeError(response)
    ).map(
      ([status, response]): readonly [string, Response] => {
        const refs = OpenApiHeaders.forResponse(Number(status), headers)
        refs.forEach(({ component }) => usedHeaders.add(component))
        const headerObject = Object.fromEntries(refs.map(({ component, name }) => [name, { $ref: `${HEADERS}${component}` }]))
        return Number(status) >= 400
          ? [status, {
            description: errorDescription(response),
            headers: headerObject,
            content: { "application/json": { schema: errorRef } }
          }]
          : [status, {
            description: response.description,
            headers: headerObject,
            ...(response.content === undefined ? {} : { content: content(response.content, referenced) })
          }]
      }
    )
    const extensions = Object.entries(op).filter(([key]) => key.startsWith("x-"))
    const description = op.description
    return {
      operationId: op.operationId,
      tags: op.tags,
      ...(op.summary === undefined ? {} : { summary: op.summary }),
      ...(description === undefined ? {} : { description }),
      ...(op.deprecated === undefined ? {} : { deprecated: op.deprecated }),
      ...(op.parameters.length === 0 ? {} : {
        parameters: op.parameters.map((p): Parameter => {
          const schema = toSchema30(asJson(p.schema))
          return {
            name: p.name,
            in: p.in,
            required: p.required,
            ...(p.description === undefined ? {} : { description: p.description }),
            // The framework copies the description into the schema; once is enough for generated docs.
            schema: schema.description === p.description ? omit(schema, "description") : schema
          }
        })
      }),
      ...(op.requestBody === undefined ? {} : {
        requestBody: { required: op.requestBody.required, content: content(op.requestBody.content, (s) => s) }
      }),
      responses: { ...Object.fromEntries(responses), default: defaultResponse },
      // An empty list would mean "no authentication"; fall back to the API-level requirement.
      ...(security.length > 0 ? { security } : apiSecurity.length > 0 ? { security: apiSecurity } : {}),
      ...Object.fromEntries(extensions.map(([key, value]) => [key, asJson(value)]))
    }
  }

  const paths: { readonly [path: string]: PathItem } = Object.fromEntries(
    Object.entries(source.paths).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).flatMap(([method, op]) => op === undefined ? [] : [[method, operation(path, method, op)]])
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

  const intro = [source.info.summary, source.info.description].filter((s): s is string => s !== undefined)
  return {
    openapi: "3.0.3",
    info: {
      title: source.info.title,
      version: source.info.version,
      description: describe(intro, paths),
      contact: CONTACT,
      ...(source.info.license === undefined ? {} : { license: source.info.license })
    },
    servers: options.servers.map(({ description, url }) => ({ url, description })),
    tags,
    paths,
    components: {
      schemas: reachable(allSchemas, [asJson(paths), errorRef]),
      headers: OpenApiHeaders.components(usedHeaders),
      securitySchemes: source.components.securitySchemes
    }
  }
}
