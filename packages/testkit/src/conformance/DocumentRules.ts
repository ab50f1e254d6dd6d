/**
 * The served OpenAPI document checked as the interface and the product decisions state it: OpenAPI
 * 3.0.x; the five operations at their paths with their ids, `animals` on the pet operations, the
 * declared tags, a bearer security scheme every operation requires, every status each operation can
 * answer, and the headers each response carries. Each departure is a failure; matters of taste
 * (see the README) are warnings.
 */

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }
type JsonObject = { readonly [k: string]: Json }

const isObject = (j: unknown): j is JsonObject => typeof j === "object" && j !== null && !Array.isArray(j)

/** The headers of every answer of the public API. */
const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"]

/** An operation the interface fixes: where it is, its id, tag and the statuses it can answer. */
interface RequiredOperation {
  readonly operationId: string
  readonly method: "get" | "post"
  /** Under the public prefix, or the messages prefix. */
  readonly base: "public" | "messages"
  readonly path: string
  readonly tag: string | undefined
  readonly statuses: ReadonlyArray<number>
  /** Headers of one status beyond the rate-limit ones. */
  readonly headers: Readonly<Record<string, ReadonlyArray<string>>>
  /** `deprecated: true` (getPet), `x-stability: experimental` (createMessage). */
  readonly marked?: "deprecated" | "experimental"
}

const COMMON_HEADERS = { "401": ["WWW-Authenticate"], "429": ["Retry-After"] }

/** @category constants */
export const REQUIRED_OPERATIONS: ReadonlyArray<RequiredOperation> = [
  {
    operationId: "listPets",
    method: "get",
    base: "public",
    path: "/pets",
    tag: "animals",
    statuses: [200, 400, 401, 429],
    headers: { ...COMMON_HEADERS, "200": ["Link"] }
  },
  {
    operationId: "createPet",
    method: "post",
    base: "public",
    path: "/pets",
    tag: "animals",
    statuses: [201, 400, 401, 413, 429],
    headers: COMMON_HEADERS
  },
  {
    operationId: "getPet",
    method: "get",
    base: "public",
    path: "/pets/{petId}",
    tag: "animals",
    statuses: [200, 400, 401, 404, 410, 429],
    headers: { ...COMMON_HEADERS, "200": ["Deprecation", "Sunset", "Link"] },
    marked: "deprecated"
  },
  {
    operationId: "createMessage",
    method: "post",
    base: "messages",
    path: "/messages",
    tag: undefined,
    statuses: [202, 400, 401, 413, 429],
    headers: COMMON_HEADERS,
    marked: "experimental"
  },
  {
    operationId: "getMessage",
    method: "get",
    base: "messages",
    path: "/messages/{id}",
    tag: undefined,
    statuses: [200, 401, 404, 429],
    headers: COMMON_HEADERS
  }
]

/** Tags the document declares: `animals` for the pet operations, `store` and `pets` as navigation groups. */
const REQUIRED_TAGS = ["animals", "store", "pets"]

/** What is wrong with the document (failures) and what is merely untidy (warnings). @category models */
export interface DocumentVerdict {
  readonly failures: ReadonlyArray<string>
  readonly warnings: ReadonlyArray<string>
}

/**
 * Checks the document. `findPath` maps a request path to the document's path template (the
 * document's own server-URL and prefix handling), so the rules hold whatever prefix is served.
 *
 * @category checks
 */
export const check = (
  document: unknown,
  prefixes: { readonly publicPrefix: string; readonly messagesPrefix: string },
  findTemplate: (method: string, path: string) => string | undefined
): DocumentVerdict => {
  const failures: Array<string> = []
  const warnings: Array<string> = []
  if (!isObject(document)) return { failures: ["the document is not a JSON object"], warnings }
  const resolve = (j: Json | undefined): Json | undefined => {
    let current = j
    for (let i = 0; i < 16 && isObject(current) && typeof current.$ref === "string"; i++) {
      const ref: string = current.$ref
      current = ref.startsWith("#/")
        ? ref.slice(2).split("/").reduce<Json | undefined>(
          (node, seg) => (isObject(node) ? node[seg.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined),
          document
        )
        : undefined
    }
    return current
  }

  if (typeof document.openapi !== "string" || !/^3\.0\.\d+$/.test(document.openapi)) {
    failures.push(`openapi is ${JSON.stringify(document.openapi)}: the interface is OpenAPI 3.0.x (3.0.3)`)
  }
  if (!isObject(document.info) || typeof document.info.version !== "string") failures.push("info.version is missing")

  const tags = Array.isArray(document.tags) ? document.tags.filter(isObject).map((t) => t.name) : []
  for (const tag of REQUIRED_TAGS) if (!tags.includes(tag)) failures.push(`the tag ${tag} is not declared (tags: ${tags.join(", ") || "none"})`)

  const schemes = isObject(document.components) && isObject(document.components.securitySchemes) ? document.components.securitySchemes : {}
  const bearer = Object.entries(schemes)
    .filter(([, s]) => {
      const scheme = resolve(s)
      return isObject(scheme) && scheme.type === "http" && typeof scheme.scheme === "string" && scheme.scheme.toLowerCase() === "bearer"
    })
    .map(([name]) => name)
  if (bearer.length === 0) failures.push("no security scheme of type http, scheme bearer in components.securitySchemes")

  const errorSchema = isObject(document.components) && isObject(document.components.schemas) ? resolve(document.components.schemas.Error) : undefined
  const errorRequired = isObject(errorSchema) && Array.isArray(errorSchema.required) ? errorSchema.required : []
  for (const field of ["code", "message", "status"]) {
    if (!errorRequired.includes(field)) failures.push(`components.schemas.Error does not require ${field} (every error is {code, message, status})`)
  }

  const paths = isObject(document.paths) ? document.paths : {}
  for (const required of REQUIRED_OPERATIONS) {
    const prefix = required.base === "public" ? prefixes.publicPrefix : prefixes.messagesPrefix
    const concrete = prefix + required.path.replace(/\{[^}]+\}/, "1")
    const where = `${required.method.toUpperCase()} ${prefix}${required.path}`
    const template = findTemplate(required.method, concrete)
    const item = template === undefined ? undefined : resolve(paths[template])
    const op = isObject(item) ? resolve(item[required.method]) : undefined
    if (!isObject(op)) {
      failures.push(`${where} (${required.operationId}) is not in the document`)
      continue
    }
    if (op.operationId !== required.operationId) {
      failures.push(`${where}: operationId ${JSON.stringify(op.operationId)}, expected ${required.operationId}`)
    }
    const opTags = Array.isArray(op.tags) ? op.tags : []
    if (required.tag !== undefined && !opTags.includes(required.tag)) failures.push(`${where}: not tagged ${required.tag}`)
    const security = Array.isArray(op.security) ? op.security : Array.isArray(document.security) ? document.security : []
    const requiresBearer = security.some((req) => isObject(req) && Object.keys(req).some((name) => bearer.includes(name)))
    if (!requiresBearer) failures.push(`${where}: does not require the bearer security scheme`)
    if (required.marked === "deprecated" && op.deprecated !== true) failures.push(`${where}: not marked deprecated: true`)
    if (required.marked === "experimental" && op["x-stability"] !== "experimental") failures.push(`${where}: not marked x-stability: experimental`)
    if (typeof op.summary !== "string" && typeof op.description !== "string") warnings.push(`${where}: neither a summary nor a description`)
    const responses = isObject(op.responses) ? op.responses : {}
    for (const status of required.statuses) {
      const response = resolve(responses[String(status)])
      if (!isObject(response)) {
        failures.push(`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(", ")})`)
        continue
      }
      const headers = isObject(response.headers) ? Object.keys(response.headers).map((h) => h.toLowerCase()) : []
      for (const header of [...RATE_LIMIT_HEADERS, ...(required.headers[String(status)] ?? [])]) {
        if (!headers.includes(header.toLowerCase())) failures.push(`${where}: the ${status} response does not document the header ${header}`)
      }
      const content = isObject(response.content) ? response.content : {}
      if (status >= 400 && !("application/json" in content)) failures.push(`${where}: the ${status} response is not documented as application/json (the Error body)`)
    }
  }
  return { failures, warnings }
}
