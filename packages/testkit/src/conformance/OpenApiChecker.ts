/**
 * Checks responses against the served OpenAPI 3.0 document: the status is documented for the
 * operation, the content type is a documented one, required headers are present and every header
 * the document knows of is documented for that response and matches its schema, and the body
 * validates against the response schema (ajv, with OpenAPI 3.0's `nullable` translated).
 * Routes the document does not have must answer 404, known paths with another method 405 and
 * `Allow`; any 5xx is a failure, documented or not.
 *
 * @since 1.0.0
 */
import { Ajv, type ValidateFunction } from "ajv"
import * as AjvFormats from "ajv-formats"
import type { HttpExchange } from "./HttpExchange.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }
type JsonObject = { readonly [k: string]: Json }

const isObject = (j: unknown): j is JsonObject => typeof j === "object" && j !== null && !Array.isArray(j)

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const

/** What a request path and method are in the document. @category models */
export type RouteMatch =
  | { readonly _tag: "Operation"; readonly operationId: string; readonly template: string; readonly method: string }
  | { readonly _tag: "MethodNotAllowed"; readonly template: string; readonly allowed: ReadonlyArray<string> }
  | { readonly _tag: "UnknownRoute" }

interface CompiledPath {
  readonly template: string
  readonly pattern: RegExp
  readonly operations: ReadonlyMap<string, JsonObject>
}

/** OpenAPI 3.0 schema → JSON Schema: `nullable: true` becomes a `null` alternative. */
export const translateNullable = (input: Json): Json => {
  if (Array.isArray(input)) return input.map(translateNullable)
  if (!isObject(input)) return input
  const out: Record<string, Json> = {}
  for (const [k, v] of Object.entries(input)) if (k !== "nullable") out[k] = translateNullable(v)
  if (input.nullable !== true) return out
  if (typeof out.type === "string" && out.$ref === undefined) {
    out.type = [out.type, "null"]
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null]
    return out
  }
  return { anyOf: [out, { type: "null" }] }
}

const pointer = (...segments: ReadonlyArray<string>): string =>
  "#" + segments.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join("")

const DOC_ID = "openapi.json"

/** Checks answers against the served OpenAPI document. @category models */
export interface OpenApiChecker {
  readonly document: JsonObject
  /** Problems of the document itself (reported, not failed on). */
  readonly warnings: ReadonlyArray<string>
  readonly match: (method: string, path: string) => RouteMatch
  /** Every way the exchange departs from the document; empty when it conforms. */
  readonly check: (exchange: HttpExchange) => ReadonlyArray<string>
}

/** Builds a checker for a parsed OpenAPI 3.0.x document. @category constructors */
export const make = (document: unknown): OpenApiChecker => {
  if (!isObject(document) || typeof document.openapi !== "string" || !isObject(document.paths)) {
    throw new Error("not an OpenAPI document (no `openapi` version or `paths`)")
  }
  const warnings: Array<string> = []
  if (!document.openapi.startsWith("3.0.")) warnings.push(`openapi is ${document.openapi}, expected 3.0.x`)
  const translated = translateNullable(document) as JsonObject
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, unicodeRegExp: true })
  ;(AjvFormats.default as unknown as (a: Ajv) => void)(ajv)
  ajv.addSchema({ ...translated, $id: DOC_ID } as object)
  const validators = new Map<string, ValidateFunction>()
  const validatorAt = (ptr: string): ValidateFunction => {
    let v = validators.get(ptr)
    if (v === undefined) {
      v = ajv.compile({ $ref: DOC_ID + ptr })
      validators.set(ptr, v)
    }
    return v
  }

  const headerValidators = new Map<string, ValidateFunction>()
  const headerValidator = (schema: Json | undefined): ValidateFunction => {
    const text = JSON.stringify(schema ?? {})
    let v = headerValidators.get(text)
    if (v === undefined) {
      v = ajv.compile(translateNullable(schema ?? {}) as object)
      headerValidators.set(text, v)
    }
    return v
  }

  const resolve = (j: Json | undefined): Json | undefined => {
    let current = j
    for (let i = 0; i < 16 && isObject(current) && typeof current.$ref === "string"; i++) {
      const ref: string = current.$ref
      if (!ref.startsWith("#/")) return current
      current = ref.slice(2).split("/").reduce<Json | undefined>(
        (node, seg) => (isObject(node) ? node[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined),
        document
      )
    }
    return current
  }

  // Server URLs may carry a base path; the document's paths are relative to it.
  const basePaths = new Set<string>([""])
  if (Array.isArray(document.servers)) {
    for (const s of document.servers) {
      if (!isObject(s) || typeof s.url !== "string") continue
      try {
        const p = new URL(s.url, "http://placeholder").pathname.replace(/\/+$/, "")
        basePaths.add(p)
      } catch {
        warnings.push(`server URL ${s.url} is not a URL`)
      }
    }
  }

  const paths: Array<CompiledPath> = Object.entries(document.paths).map(([template, item]) => {
    const operations = new Map<string, JsonObject>()
    if (isObject(item)) {
      for (const m of METHODS) {
        const op = item[m]
        if (isObject(op)) operations.set(m.toUpperCase(), op)
      }
    }
    const source = template.split(/\{[^}]+\}/).map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")
    return { template, pattern: new RegExp(`^${source}$`), operations }
  })

  for (const base of [...basePaths]) {
    if (base === "") continue
    const doubled = paths.filter((p) => p.template.startsWith(base + "/"))
    if (doubled.length > 0 && doubled.length === paths.length) {
      warnings.push(
        `every path starts with ${base}, which the server URLs already end with: per OpenAPI a client would call ${base}${
          doubled[0]!.template
        }; the checker matches the paths as absolute`
      )
      basePaths.delete(base)
    }
  }

  const allHeaderNames = new Set<string>()
  const collectHeaders = (j: Json | undefined): void => {
    if (Array.isArray(j)) return j.forEach(collectHeaders)
    if (!isObject(j)) return
    for (const [k, v] of Object.entries(j)) {
      if (k === "headers" && isObject(v)) for (const name of Object.keys(v)) allHeaderNames.add(name.toLowerCase())
      collectHeaders(v)
    }
  }
  collectHeaders(document.paths)

  const findPath = (path: string): CompiledPath | undefined => {
    for (const base of basePaths) {
      if (base !== "" && !path.startsWith(base + "/")) continue
      const rest = path.slice(base.length)
      const found = paths.find((p) => p.pattern.test(rest))
      if (found !== undefined) return found
    }
    return undefined
  }

  const match = (method: string, path: string): RouteMatch => {
    const found = findPath(path.split("?")[0]!)
    if (found === undefined) return { _tag: "UnknownRoute" }
    const op = found.operations.get(method.toUpperCase())
    if (op === undefined) return { _tag: "MethodNotAllowed", template: found.template, allowed: [...found.operations.keys()] }
    const operationId = typeof op.operationId === "string" ? op.operationId : `${method.toUpperCase()} ${found.template}`
    return { _tag: "Operation", operationId, template: found.template, method: method.toUpperCase() }
  }

  const errorSchemaPointer = isObject(document.components) && isObject(document.components.schemas) &&
      isObject(document.components.schemas.Error)
    ? pointer("components", "schemas", "Error")
    : undefined

  const validateBody = (ptr: string, text: string, what: string, problems: Array<string>) => {
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      problems.push(`${what}: the body is not JSON: ${JSON.stringify(text.slice(0, 80))}`)
      return
    }
    const validate = validatorAt(ptr)
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "(body)"} ${e.message ?? ""}`)
      problems.push(`${what}: the body does not match the schema: ${errors.join("; ")}; body ${text.slice(0, 300)}`)
    }
  }

  const headerValue = (schema: Json | undefined, raw: string): unknown => {
    const s = resolve(schema)
    if (isObject(s) && (s.type === "integer" || s.type === "number")) {
      return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw.trim()) : raw
    }
    return raw
  }

  const check = (exchange: HttpExchange): ReadonlyArray<string> => {
    const { request, response } = exchange
    const problems: Array<string> = []
    const what = `${request.method} ${request.path} → ${response.status}`
    if (response.status >= 500) problems.push(`${what}: a server error (any 5xx fails)`)
    const contentType = response.headers["content-type"]
    const mediaType = contentType?.split(";")[0]!.trim().toLowerCase()
    const hasBody = response.text.length > 0
    const route = match(request.method, request.path)

    const checkErrorBody = () => {
      if (response.status < 400) return
      if (mediaType !== "application/json") {
        problems.push(`${what}: an error without a JSON body (Content-Type ${contentType ?? "missing"})`)
        return
      }
      try {
        const body = JSON.parse(response.text) as unknown
        if (!isObject(body) || body.status !== response.status || typeof body.code !== "string" || typeof body.message !== "string") {
          problems.push(`${what}: the Error body must be {code, message, status: ${response.status}}, got ${response.text.slice(0, 200)}`)
        } else if (!/^[a-z][a-z0-9_]*$/.test(body.code)) {
          problems.push(`${what}: error code ${JSON.stringify(body.code)} is not snake_case`)
        }
      } catch {
        problems.push(`${what}: the error body is not JSON`)
      }
    }

    if (route._tag !== "Operation") {
      checkErrorBody()
      if (errorSchemaPointer !== undefined && mediaType === "application/json" && response.status >= 400) {
        validateBody(errorSchemaPointer, response.text, what, problems)
      }
      return problems
    }

    const found = findPath(request.path.split("?")[0]!)!
    const op = found.operations.get(route.method)!
    const responses = isObject(op.responses) ? op.responses : {}
    const key = String(response.status)
    const statusKey = key in responses ? key : `${key[0]}XX` in responses ? `${key[0]}XX` : "default" in responses ? "default" : undefined
    if (statusKey === undefined) {
      problems.push(`${what}: status ${key} is not documented for ${route.operationId} (documented: ${Object.keys(responses).join(", ")})`)
      checkErrorBody()
      return problems
    }
    const documented = resolve(responses[statusKey])
    const base = pointer("paths", found.template, route.method.toLowerCase(), "responses", statusKey)

    // Content type and body.
    const content = isObject(documented) && isObject(documented.content) ? documented.content : undefined
    if (hasBody && request.method !== "HEAD") {
      if (content === undefined || Object.keys(content).length === 0) {
        problems.push(`${what}: a body where the document declares none`)
      } else if (mediaType === undefined) {
        problems.push(`${what}: a body without Content-Type`)
      } else if (!(mediaType in content)) {
        problems.push(`${what}: Content-Type ${contentType} is not documented (${Object.keys(content).join(", ")})`)
      } else if (/json/.test(mediaType)) {
        const media = content[mediaType]
        if (isObject(media) && media.schema !== undefined) {
          const schemaPtr = isObject(responses[statusKey]) && typeof (responses[statusKey] as JsonObject).$ref === "string"
            ? ((responses[statusKey] as JsonObject).$ref as string).slice(1) + pointer("content", mediaType, "schema").slice(1)
            : base.slice(1) + pointer("content", mediaType, "schema").slice(1)
          validateBody("#" + schemaPtr, response.text, what, problems)
        }
      }
    } else if (content !== undefined && Object.keys(content).length > 0 && request.method !== "HEAD") {
      problems.push(`${what}: no body where the document declares ${Object.keys(content).join(", ")}`)
    }

    // Headers: required ones present, present ones valid, known ones documented here.
    const headers = isObject(documented) && isObject(documented.headers) ? documented.headers : {}
    const documentedNames = new Set(Object.keys(headers).map((h) => h.toLowerCase()))
    for (const [name, spec] of Object.entries(headers)) {
      const header = resolve(spec)
      const value = response.headers[name.toLowerCase()]
      if (value === undefined) {
        if (isObject(header) && header.required === true) problems.push(`${what}: the required header ${name} is missing`)
        continue
      }
      if (isObject(header) && header.schema !== undefined) {
        const schema = resolve(header.schema)
        const validate = headerValidator(schema)
        if (!validate(headerValue(header.schema, value))) {
          problems.push(`${what}: header ${name}: ${JSON.stringify(value)} does not match its schema (${JSON.stringify(schema)})`)
        }
      }
    }
    for (const name of Object.keys(response.headers)) {
      if (allHeaderNames.has(name) && !documentedNames.has(name)) {
        problems.push(`${what}: header ${name} is sent but not documented for this response`)
      }
    }
    checkErrorBody()
    return problems
  }

  return { document, warnings, match, check }
}
