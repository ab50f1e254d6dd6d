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
import type { HttpExchange } from "./HttpExchange.js"
import { isObject, type Json, type JsonObject, pointer, resolveIn } from "./OpenApiJson.js"
import { compileRoutes, type CompiledPath, type RouteMatch } from "./OpenApiRoutes.js"
import { makeValidators, type Validators } from "./OpenApiValidators.js"

export { translateNullable } from "./OpenApiJson.js"
export type { RouteMatch } from "./OpenApiRoutes.js"

/** Checks answers against the served OpenAPI document. @category models */
export interface OpenApiChecker {
  readonly document: JsonObject
  /** Problems of the document itself (reported, not failed on). */
  readonly warnings: ReadonlyArray<string>
  readonly match: (method: string, path: string) => RouteMatch
  /** Every way the exchange departs from the document; empty when it conforms. */
  readonly check: (exchange: HttpExchange) => ReadonlyArray<string>
}

/** What the checks of one exchange read of the document. */
interface Compiled {
  readonly resolve: (j: Json | undefined) => Json | undefined
  readonly validators: Validators
  readonly findPath: (path: string) => CompiledPath | undefined
  readonly match: (method: string, path: string) => RouteMatch
  /** Every header name the document documents on any response, in lower case. */
  readonly allHeaderNames: ReadonlySet<string>
  readonly errorSchemaPointer: string | undefined
}

/** One exchange as its checks see it; `problems` collects what they find. */
interface Answer {
  readonly exchange: HttpExchange
  readonly what: string
  readonly contentType: string | undefined
  readonly mediaType: string | undefined
  readonly problems: Array<string>
}

/** Builds a checker for a parsed OpenAPI 3.0.x document. @category constructors */
export const make = (document: unknown): OpenApiChecker => {
  if (!isObject(document) || typeof document.openapi !== "string" || !isObject(document.paths)) {
    throw new Error("not an OpenAPI document (no `openapi` version or `paths`)")
  }
  const warnings: Array<string> = []
  if (!document.openapi.startsWith("3.0.")) warnings.push(`openapi is ${document.openapi}, expected 3.0.x`)
  const resolve = resolveIn(document)
  const validators = makeValidators(document, resolve)
  const { findPath, match } = compileRoutes(document as JsonObject & { readonly paths: JsonObject }, warnings)
  const compiled: Compiled = {
    resolve,
    validators,
    findPath,
    match,
    allHeaderNames: headerNames(document.paths),
    errorSchemaPointer: isObject(document.components) && isObject(document.components.schemas) &&
        isObject(document.components.schemas.Error)
      ? pointer("components", "schemas", "Error")
      : undefined
  }
  return { document, warnings, match, check: (exchange) => check(compiled, exchange) }
}

const headerNames = (paths: Json): ReadonlySet<string> => {
  const names = new Set<string>()
  const collect = (j: Json | undefined): void => {
    if (Array.isArray(j)) return j.forEach(collect)
    if (!isObject(j)) return
    for (const [k, v] of Object.entries(j)) {
      if (k === "headers" && isObject(v)) for (const name of Object.keys(v)) names.add(name.toLowerCase())
      collect(v)
    }
  }
  collect(paths)
  return names
}

const check = (compiled: Compiled, exchange: HttpExchange): ReadonlyArray<string> => {
  const { request, response } = exchange
  const contentType = response.headers["content-type"]
  const answer: Answer = {
    exchange,
    what: `${request.method} ${request.path} → ${response.status}`,
    contentType,
    mediaType: contentType?.split(";")[0]!.trim().toLowerCase(),
    problems: []
  }
  const { problems, what } = answer
  if (response.status >= 500) problems.push(`${what}: a server error (any 5xx fails)`)
  const route = compiled.match(request.method, request.path)
  if (route._tag !== "Operation") {
    checkErrorBody(answer)
    if (compiled.errorSchemaPointer !== undefined && answer.mediaType === "application/json" && response.status >= 400) {
      compiled.validators.validateBody(compiled.errorSchemaPointer, response.text, what, problems)
    }
    return problems
  }
  const found = compiled.findPath(request.path.split("?")[0]!)!
  const op = found.operations.get(route.method)!
  const responses = isObject(op.responses) ? op.responses : {}
  const key = String(response.status)
  const statusKey = key in responses ? key : `${key[0]}XX` in responses ? `${key[0]}XX` : "default" in responses ? "default" : undefined
  if (statusKey === undefined) {
    problems.push(`${what}: status ${key} is not documented for ${route.operationId} (documented: ${Object.keys(responses).join(", ")})`)
    checkErrorBody(answer)
    return problems
  }
  const documented = compiled.resolve(responses[statusKey])
  // Where the response's content is: through the response's own `$ref`, or in place.
  const reference = responses[statusKey]
  const contentBase = isObject(reference) && typeof reference.$ref === "string"
    ? reference.$ref.slice(1)
    : pointer("paths", found.template, route.method.toLowerCase(), "responses", statusKey).slice(1)
  checkContent(compiled, answer, documented, contentBase)
  checkHeaders(compiled, answer, documented)
  checkErrorBody(answer)
  return problems
}

/** An error answer (4xx, 5xx) has the Error body: `{code, message, status}`, its code snake_case. */
const checkErrorBody = ({ contentType, exchange: { response }, mediaType, problems, what }: Answer): void => {
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

/** Content type and body: a body exactly where one is documented, of a documented type, matching its schema. */
const checkContent = (compiled: Compiled, answer: Answer, documented: Json | undefined, contentBase: string): void => {
  const { contentType, exchange: { request, response }, mediaType, problems, what } = answer
  const content = isObject(documented) && isObject(documented.content) ? documented.content : undefined
  if (response.text.length > 0 && request.method !== "HEAD") {
    if (content === undefined || Object.keys(content).length === 0) {
      problems.push(`${what}: a body where the document declares none`)
    } else if (mediaType === undefined) {
      problems.push(`${what}: a body without Content-Type`)
    } else if (!(mediaType in content)) {
      problems.push(`${what}: Content-Type ${contentType} is not documented (${Object.keys(content).join(", ")})`)
    } else if (/json/.test(mediaType)) {
      const media = content[mediaType]
      if (isObject(media) && media.schema !== undefined) {
        const schemaPtr = contentBase + pointer("content", mediaType, "schema").slice(1)
        compiled.validators.validateBody("#" + schemaPtr, response.text, what, problems)
      }
    }
  } else if (content !== undefined && Object.keys(content).length > 0 && request.method !== "HEAD") {
    problems.push(`${what}: no body where the document declares ${Object.keys(content).join(", ")}`)
  }
}

/** Headers: required ones present, present ones valid, known ones documented here. */
const checkHeaders = (compiled: Compiled, { exchange: { response }, problems, what }: Answer, documented: Json | undefined): void => {
  const headers = isObject(documented) && isObject(documented.headers) ? documented.headers : {}
  const documentedNames = new Set(Object.keys(headers).map((h) => h.toLowerCase()))
  for (const [name, spec] of Object.entries(headers)) {
    const header = compiled.resolve(spec)
    const value = response.headers[name.toLowerCase()]
    if (value === undefined) {
      if (isObject(header) && header.required === true) problems.push(`${what}: the required header ${name} is missing`)
      continue
    }
    if (isObject(header) && header.schema !== undefined) {
      const schema = compiled.resolve(header.schema)
      if (!compiled.validators.validHeader(schema, compiled.validators.headerValue(header.schema, value))) {
        problems.push(`${what}: header ${name}: ${JSON.stringify(value)} does not match its schema (${JSON.stringify(schema)})`)
      }
    }
  }
  for (const name of Object.keys(response.headers)) {
    if (compiled.allHeaderNames.has(name) && !documentedNames.has(name)) {
      problems.push(`${what}: header ${name} is sent but not documented for this response`)
    }
  }
}
