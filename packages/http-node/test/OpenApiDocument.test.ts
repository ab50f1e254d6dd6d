import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { describe, expect, it } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import { Schema } from "effect"
import { Api, makeApi } from "../src/Api.js"
import { ERROR_CODES } from "../src/ErrorCodes.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"

const servers = [
  { url: "https://api.example.com", description: "Production" },
  { url: "https://staging.api.example.com", description: "Staging" }
]
const doc = OpenApiDocument.make({ api: Api, servers })

type Json = OpenApiDocument.Json
type Visit = (node: Json, path: ReadonlyArray<string>) => void

const walk = (node: Json, visit: Visit, path: ReadonlyArray<string> = []): void => {
  visit(node, path)
  if (Array.isArray(node)) node.forEach((child, i) => walk(child, visit, [...path, String(i)]))
  else if (typeof node === "object" && node !== null) {
    Object.entries(node).forEach(([key, child]) => walk(child, visit, [...path, key]))
  }
}

const asJson = (u: unknown): Json => u as Json
const isObject = (u: Json | undefined): u is OpenApiDocument.JsonObject =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const validate = async (document: unknown) => {
  const validator = new Validator()
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>)
  return { ...result, version: validator.version }
}

const operations = (document: OpenApiDocument.OpenApiDocument) =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) => op === undefined ? [] : [{ method, path, op }])
  )

const byId = (id: string) => {
  const found = operations(doc).find((e) => e.op.operationId === id)
  if (found === undefined) throw new Error(`no operation ${id}`)
  return found
}

/** Resolves a local `$ref` (one level of `allOf` wrapping included). */
const resolve = (schema: Json | undefined): OpenApiDocument.JsonObject => {
  if (!isObject(schema)) return {}
  const ref = typeof schema.$ref === "string" ? schema.$ref : undefined
  if (ref !== undefined) return resolve(doc.components.schemas[ref.replace("#/components/schemas/", "")])
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1) return resolve(schema.allOf[0])
  return schema
}

/** Keywords of JSON Schema 2020-12 / OpenAPI 3.1 that a 3.0.3 document must not contain. */
const KEYWORDS_31 = [
  "$schema", "$id", "$defs", "$anchor", "$dynamicRef", "$dynamicAnchor", "$comment", "const", "examples",
  "prefixItems", "unevaluatedProperties", "unevaluatedItems", "contentMediaType", "contentEncoding",
  "contentSchema", "if", "then", "else", "dependentRequired", "dependentSchemas", "patternProperties",
  "propertyNames", "contains", "minContains", "maxContains", "jsonSchemaDialect", "webhooks"
]
const TYPES_30 = ["array", "boolean", "integer", "number", "object", "string"]

/** Every place `document` is not OpenAPI 3.0.3, as "path: reason". */
const dialect31 = (document: unknown): ReadonlyArray<string> => {
  const problems: Array<string> = []
  walk(asJson(document), (node, path) => {
    if (!isObject(node)) return
    const at = path.join("/")
    const inProperties = path[path.length - 1] === "properties"
    for (const key of Object.keys(node)) {
      if (!inProperties && KEYWORDS_31.includes(key)) problems.push(`${at}: ${key}`)
    }
    if (inProperties) return
    // `type` of a security scheme is not a schema type.
    if ("type" in node && !path.includes("securitySchemes") && !(typeof node.type === "string" && TYPES_30.includes(node.type))) {
      problems.push(`${at}: type ${JSON.stringify(node.type)}`)
    }
    for (const key of ["exclusiveMinimum", "exclusiveMaximum", "nullable"]) {
      if (key in node && typeof node[key] !== "boolean") problems.push(`${at}: numeric ${key}`)
    }
    for (const key of ["anyOf", "oneOf"]) {
      const members = node[key]
      if (Array.isArray(members) && members.some((m) => isObject(m) && m.type === "null")) {
        problems.push(`${at}: ${key} with null`)
      }
    }
    if ("items" in node && !isObject(node.items)) problems.push(`${at}: items ${JSON.stringify(node.items)}`)
    if (Array.isArray(node.required) && node.required.length === 0) problems.push(`${at}: empty required`)
  })
  return problems
}

const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "RateLimit-Policy", "RateLimit"]
const COMMON_ERRORS = ["401", "403", "429", "500", "503"]

describe("OpenApiDocument", () => {
  it("is valid OpenAPI 3.0.3 according to the real validator", async () => {
    const result = await validate(doc)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(result.version).toBe("3.0")
    expect(doc.openapi).toBe("3.0.3")
    expect(doc.info.version).toBe("1.1.0")
    expect(doc.info.title).toBe("Pet Store Service")
    expect(doc.servers).toEqual(servers)
  })

  it("contains no OpenAPI 3.1 / JSON Schema 2020-12 construct anywhere", () => {
    expect(dialect31(doc)).toEqual([])
  })

  it("types Error.code as the enum of the stable codes, and leaks no schema title into generated types", () => {
    const error = asJson(doc.components.schemas.Error) as OpenApiDocument.JsonObject
    const code = (error.properties as OpenApiDocument.JsonObject).code as OpenApiDocument.JsonObject
    expect(code.type).toBe("string")
    expect(code.enum).toEqual(Object.keys(ERROR_CODES))
    const titled: Array<string> = []
    walk(asJson(doc.components), (node, path) => {
      if (isObject(node) && "title" in node && path.at(-1) !== "properties") titled.push(`${path.join(".")}: ${JSON.stringify(node.title)}`)
    })
    expect(titled).toEqual([])
  })

  it("names the operations listPets, createPet, getPet, createMessage, getMessage, getUsage", () => {
    expect(operations(doc).map((e) => `${e.op.operationId} ${e.method.toUpperCase()} ${e.path}`)).toEqual([
      "listPets GET /v1/pets",
      "createPet POST /v1/pets",
      "getPet GET /v1/pets/{petId}",
      "createMessage POST /v1/messages",
      "getMessage GET /v1/messages/{id}",
      "getUsage GET /v1/usage"
    ])
  })

  it("declares the tags animals, messages and usage, and store and pets as navigation groups without operations", () => {
    expect(doc.tags.map((t) => t.name)).toEqual(["animals", "messages", "usage", "store", "pets"])
    for (const tag of doc.tags) expect(tag.description ?? "").not.toBe("")
    const tagged = (name: string) => operations(doc).filter((e) => e.op.tags.includes(name)).map((e) => e.op.operationId)
    expect(tagged("animals")).toEqual(["listPets", "createPet", "getPet"])
    expect(tagged("messages")).toEqual(["createMessage", "getMessage"])
    expect(tagged("usage")).toEqual(["getUsage"])
    expect(tagged("store")).toEqual([])
    expect(tagged("pets")).toEqual([])
    expect(doc.tags.find((t) => t.name === "store")?.description).toContain("GET /store/orders")
  })

  it("marks getPet deprecated, the message operations experimental and getUsage beta, and nothing else", () => {
    for (const { op } of operations(doc)) {
      expect(op.deprecated === true, op.operationId).toBe(op.operationId === "getPet")
      expect(op["x-stability"], op.operationId).toBe(
        op.operationId.endsWith("Message") ? "experimental" : op.operationId === "getUsage" ? "beta" : undefined
      )
    }
  })

  it.each([
    { id: "listPets", own: ["200", "400"] },
    { id: "createPet", own: ["201", "400", "409", "413", "422"] },
    { id: "getPet", own: ["200", "400", "404", "410"] },
    { id: "createMessage", own: ["202", "400", "409", "413", "422"] },
    { id: "getMessage", own: ["200", "404"] },
    { id: "getUsage", own: ["200", "400", "404"] }
  ])("$id declares 401, 403, 429, 500, 503, default and $own", ({ id, own }) => {
    expect(Object.keys(byId(id).op.responses).sort()).toEqual([...own, ...COMMON_ERRORS, "default"].sort())
  })

  it("gives every error response the Error body, and nothing of HttpApiDecodeError is left", () => {
    for (const { op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue
        expect(response.content, `${op.operationId} ${status}`).toEqual({
          "application/json": { schema: { $ref: "#/components/schemas/Error" } }
        })
        expect(response.description).not.toBe("")
        expect(response.description).not.toMatch(/did not match the expected schema/)
      }
    }
    const error = doc.components.schemas["Error"]!
    expect(error.type).toBe("object")
    expect(error.required).toEqual(["code", "message", "status"])
    expect(Object.keys(isObject(error.properties) ? error.properties : {})).toEqual(["code", "message", "status"])
    expect(Object.keys(doc.components.schemas)).not.toContain("HttpApiDecodeError")
    expect(Object.keys(doc.components.schemas)).not.toContain("Issue")
    expect(Object.keys(doc.components.schemas)).not.toContain("PropertyKey")
    expect(JSON.stringify(doc)).not.toMatch(/HttpApiDecodeError|"_tag"/)
  })

  it("gives every operation a `default` Error response for the statuses the HTTP layer answers itself", () => {
    for (const { op } of operations(doc)) {
      const fallback = op.responses["default"]!
      expect(fallback.content).toEqual({ "application/json": { schema: { $ref: "#/components/schemas/Error" } } })
      expect(fallback.headers).toEqual({ "X-Request-Id": { $ref: "#/components/headers/X-Request-Id" } })
      for (const code of ["request_timeout", "expectation_failed", "headers_too_large"] as const) {
        expect(fallback.description).toContain(`${ERROR_CODES[code].status} \`${code}\``)
      }
    }
  })

  it("marks required exactly the headers every answer of that status carries", () => {
    const ALWAYS = Object.fromEntries([...RATE_LIMIT_HEADERS, "X-Request-Id"].map((name) => [name, "always"]))
    const SOMETIMES = Object.fromEntries([...RATE_LIMIT_HEADERS, "X-Request-Id"].map((name) => [name, "sometimes"]))
    // Answers below 500 all come after the rate limiter (401 and its 429 with the address's bucket);
    // a 5xx may come before it; the HTTP layer's own answers (default) carry only the request id.
    const common = {
      "401": { ...ALWAYS, "WWW-Authenticate": "always" },
      // A suspended account's refusal comes before the limiter counts the request.
      "403": { "X-Request-Id": "always" },
      "429": { ...ALWAYS, "Retry-After": "always" },
      "500": SOMETIMES,
      "503": { ...SOMETIMES, "Retry-After": "sometimes" },
      default: { "X-Request-Id": "always" }
    }
    // getPet's own headers are written once the request is routed: never on 401 and 429.
    const lifecycle = (presence: string) => ({ Deprecation: presence, Sunset: presence, Link: presence })
    const expected: Record<string, Record<string, Record<string, string>>> = {
      listPets: { "200": { ...ALWAYS, Link: "sometimes" }, "400": ALWAYS, ...common },
      createPet: {
        "201": { ...ALWAYS, Location: "always", "Idempotent-Replayed": "sometimes" },
        "400": ALWAYS,
        "409": { ...ALWAYS, "Retry-After": "always" },
        "413": ALWAYS,
        "422": ALWAYS,
        ...common
      },
      getPet: {
        ...Object.fromEntries(["200", "400", "404", "410"].map((status) => [status, { ...ALWAYS, ...lifecycle("always") }])),
        ...common,
        "500": { ...SOMETIMES, ...lifecycle("sometimes") },
        "503": { ...common["503"], ...lifecycle("sometimes") }
      },
      createMessage: {
        "202": { ...ALWAYS, Location: "always", "Idempotent-Replayed": "sometimes" },
        "400": ALWAYS,
        "409": { ...ALWAYS, "Retry-After": "always" },
        "413": ALWAYS,
        "422": ALWAYS,
        ...common
      },
      getMessage: { "200": ALWAYS, "404": ALWAYS, ...common }
    }
    const presence = (id: string) =>
      Object.fromEntries(Object.entries(byId(id).op.responses).map(([status, response]) => [
        status,
        Object.fromEntries(Object.entries(response.headers).map(([name, { $ref }]) => {
          const header = doc.components.headers[$ref.replace("#/components/headers/", "")]
          expect(header, $ref).toBeDefined()
          return [name, header!.required === true ? "always" : "sometimes"]
        }))
      ]))
    for (const id of Object.keys(expected)) expect(presence(id), id).toEqual(expected[id])
  })

  it("describes each header, and says when one sent only sometimes is absent", () => {
    const headers = doc.components.headers
    expect(headers["X-RateLimit-Reset"]!.schema).toMatchObject({ type: "integer" })
    expect(headers["X-RateLimit-Limit"]!.schema).toMatchObject({ type: "integer" })
    expect(headers["X-RateLimit-Remaining"]!.schema).toMatchObject({ type: "integer" })
    expect(headers["Retry-After"]!.schema).toMatchObject({ type: "integer", minimum: 1 })
    expect(headers["RateLimit-Policy"]!.schema).toMatchObject({ type: "string" })
    expect(headers["RateLimit"]!.schema).toMatchObject({ type: "string" })
    for (const [name, header] of Object.entries(headers)) {
      if (header.required === true) continue
      expect(header.description, name).toMatch(/Absent|absent/)
      // The optional variant describes the same header as the required one.
      const always = headers[name.replace(/\.Optional$/, "")]
      if (always !== undefined) expect(header.schema, name).toEqual(always.schema)
    }
    expect(headers["X-RateLimit-Limit.Optional"]!.description).toMatch(/before the rate limiter/)
    expect(headers["Retry-After.Optional"]!.description).toMatch(/connections/)
  })

  it("declares each endpoint's own headers: Link, Location, Deprecation, Sunset", () => {
    const headersOf = (id: string, status: string) => byId(id).op.responses[status]!.headers
    const ref = (name: string) => ({ $ref: `#/components/headers/${name}` })
    expect(headersOf("listPets", "200")["Link"]).toEqual(ref("Link-Next-Page.Optional"))
    expect(headersOf("listPets", "400")["Link"]).toBeUndefined()
    expect(headersOf("createPet", "201")["Location"]).toEqual(ref("Location"))
    expect(headersOf("createMessage", "202")["Location"]).toEqual(ref("Location"))
    expect(headersOf("createPet", "201")["Idempotent-Replayed"]).toEqual(ref("Idempotent-Replayed.Optional"))
    expect(headersOf("createMessage", "202")["Idempotent-Replayed"]).toEqual(ref("Idempotent-Replayed.Optional"))
    expect(headersOf("createPet", "400")["Location"]).toBeUndefined()
    for (const status of ["200", "400", "404", "410"]) {
      expect(headersOf("getPet", status)).toMatchObject({
        Deprecation: ref("Deprecation"),
        Sunset: ref("Sunset"),
        Link: ref("Link-Successor")
      })
    }
    expect(headersOf("getPet", "503")["Link"]).toEqual(ref("Link-Successor.Optional"))
    for (const status of ["401", "429", "default"]) {
      expect(Object.keys(headersOf("getPet", status))).not.toContain("Deprecation")
      expect(Object.keys(headersOf("getPet", status))).not.toContain("Link")
    }
    for (const id of ["listPets", "createPet", "createMessage", "getMessage"]) {
      for (const response of Object.values(byId(id).op.responses)) {
        expect(Object.keys(response.headers)).not.toContain("Deprecation")
        expect(Object.keys(response.headers)).not.toContain("Sunset")
      }
    }
    expect(doc.components.headers["Sunset"]!.example).toBe("Thu, 05 Dec 2030 00:00:00 GMT")
    expect(doc.components.headers["Link-Next-Page.Optional"]!.description).toContain("rel=\"next\"")
  })

  it("leaks nothing into generated types: no explicit `additionalProperties: true`, no repeated parameter descriptions", () => {
    const explicit: Array<string> = []
    walk(asJson(doc.components), (node, path) => {
      if (isObject(node) && node.additionalProperties === true && path.at(-1) !== "properties") explicit.push(path.join("."))
    })
    expect(explicit).toEqual([])
    for (const { op } of operations(doc)) {
      for (const parameter of op.parameters ?? []) {
        expect(parameter.schema.description, `${op.operationId} ${parameter.name}`).toBeUndefined()
      }
    }
    const messageId = byId("getMessage").op.parameters?.find((p) => p.name === "id")
    expect(messageId?.description).toMatch(/message/)
  })

  it("describes every schema and every property that is no reference (generated types get their doc comments)", () => {
    const undescribed: Array<string> = []
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      if (typeof schema.description !== "string" || schema.description === "") undescribed.push(name)
      for (const [property, sub] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        if (isObject(sub) && sub.$ref === undefined && typeof sub.description !== "string") undescribed.push(`${name}.${property}`)
      }
    }
    expect(undescribed).toEqual([])
  })

  it("describes every operation and names the licence and a contact", () => {
    for (const { op } of operations(doc)) expect(op.description ?? "", op.operationId).not.toBe("")
    expect(doc.info.license).toEqual({ name: "MIT", url: "https://opensource.org/licenses/MIT" })
    expect(doc.info.contact.url).toMatch(/^https:\/\//)
  })

  it("requires bearerAuth on every operation and never says `security: []`", () => {
    expect(doc.components.securitySchemes).toEqual({
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "API key" }
    })
    for (const { op } of operations(doc)) expect(op.security, op.operationId).toEqual([{ bearerAuth: [] }])
    // Also at the root, so the reference page's introduction shows authentication as required.
    expect(doc.security).toEqual([{ bearerAuth: [] }])
    const empty: Array<string> = []
    walk(asJson(doc), (node, path) => {
      if (path[path.length - 1] === "security" && Array.isArray(node) && node.length === 0) empty.push(path.join("/"))
    })
    expect(empty).toEqual([])
  })

  it("bounds integer ids to 1 .. 2^53 − 1 as int64 in Pet, NewPet and the path", () => {
    const bounds = { type: "integer", format: "int64", minimum: 1, maximum: 9007199254740991 }
    const pet = resolve(doc.components.schemas["Pet"])
    const newPet = resolve(doc.components.schemas["NewPet"])
    const properties = (s: OpenApiDocument.JsonObject) => isObject(s.properties) ? s.properties : {}
    expect(resolve(properties(pet)["id"])).toMatchObject(bounds)
    expect(resolve(properties(pet)["categoryId"])).toMatchObject(bounds)
    expect(resolve(properties(newPet)["categoryId"])).toMatchObject(bounds)
    expect(properties(newPet)["id"]).toBeUndefined()
    const petId = byId("getPet").op.parameters?.find((p) => p.name === "petId")
    expect(petId).toMatchObject({ in: "path", required: true })
    expect(resolve(asJson(petId?.schema))).toMatchObject(bounds)
  })

  it("does not forbid unknown fields in NewPet (the server ignores them)", () => {
    expect(doc.components.schemas["NewPet"]!.additionalProperties).not.toBe(false)
    const createPet = byId("createPet").op
    expect(createPet.requestBody).toEqual({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/NewPet" } } }
    })
  })

  it("documents limit's bounds and default and the cursor parameter", () => {
    const params = byId("listPets").op.parameters ?? []
    expect(params.map((p) => p.name)).toEqual(["limit", "status", "cursor"])
    expect(params[0]!.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100, default: 20 })
    expect(resolve(params[1]!.schema)).toMatchObject({ enum: ["available", "pending", "sold"] })
  })

  it("describes error codes, rate-limit headers, pagination, deprecation and GET /store/orders", () => {
    const description = doc.info.description
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      expect(description).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`))
    }
    for (const header of [...RATE_LIMIT_HEADERS, "Retry-After"]) expect(description).toContain(header)
    expect(description).toContain("rel=\"next\"")
    expect(description).toContain("cursor")
    expect(description).toMatch(/Deprecation[\s\S]*Sunset/)
    expect(description).toContain("Thu, 05 Dec 2030")
    expect(description).toMatch(/`GET \/store\/orders`[^.]*404/)
    for (const plan of ["free", "pro", "business", "enterprise"]) expect(description).toContain(`| ${plan} |`)
  })

  it("is pure: equal documents for equal input, and the cached fromApi output is left untouched", () => {
    const before = JSON.stringify(OpenApi.fromApi(Api))
    expect(OpenApiDocument.make({ api: Api, servers })).toEqual(doc)
    expect(JSON.stringify(OpenApi.fromApi(Api))).toBe(before)
    expect(OpenApi.fromApi(Api).openapi).toBe("3.1.0")
  })

  it("follows the quickstart base path of the message operations", async () => {
    const moved = OpenApiDocument.make({ api: makeApi("/quickstart"), servers })
    expect(Object.keys(moved.paths)).toEqual(["/v1/pets", "/v1/pets/{petId}", "/quickstart/messages", "/quickstart/messages/{id}", "/v1/usage"])
    expect(moved.paths["/quickstart/messages"]?.post?.responses["202"]?.headers["Location"]).toBeDefined()
    expect((await validate(moved)).valid).toBe(true)
  })

  it("converts the 3.1 constructs of any HttpApi into valid 3.0.3", async () => {
    const Inner = Schema.Struct({ a: Schema.String }).annotate({ identifier: "Inner" })
    const Thing = Schema.Struct({
      nullable: Schema.NullOr(Schema.String),
      nullableRef: Schema.NullOr(Inner),
      nullableUnion: Schema.Union([Schema.String, Schema.Finite, Schema.Null]),
      literalOrNull: Schema.Union([Schema.Literal("x"), Schema.Null]),
      bounded: Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThan(10)),
      pair: Schema.Tuple([Schema.String, Schema.Finite]),
      headAndRest: Schema.TupleWithRest(Schema.Tuple([Schema.String]), [Schema.Finite]),
      byName: Schema.Record(Schema.String, Schema.Finite),
      byPattern: Schema.Record(Schema.TemplateLiteral(["a", Schema.String]), Schema.Finite),
      anything: Schema.Unknown,
      withExample: Schema.String.annotate({ examples: ["hello"] }),
      allOptional: Schema.optional(Schema.Struct({ o: Schema.optional(Schema.String) }))
    }).annotate({ identifier: "Thing" })
    const api = HttpApi.make("sample").add(
      HttpApiGroup.make("things").add(HttpApiEndpoint.post("put", "/things", { payload: Thing, success: Thing }))
    )
    const sample = OpenApiDocument.make({ api, servers: [] })
    const result = await validate(sample)
    expect(result.errors).toBeUndefined()
    expect(result.valid).toBe(true)
    expect(dialect31(sample)).toEqual([])

    const thing = sample.components.schemas["Thing"]!
    const p = isObject(thing.properties) ? thing.properties : {}
    expect(p["nullable"]).toEqual({ type: "string", nullable: true })
    expect(p["nullableRef"]).toEqual({ allOf: [{ $ref: "#/components/schemas/Inner" }], nullable: true })
    expect(p["nullableUnion"]).toEqual({ anyOf: [{ type: "string" }, { type: "number" }], nullable: true })
    expect(p["literalOrNull"]).toEqual({ type: "string", enum: ["x"], nullable: true })
    expect(p["bounded"]).toMatchObject({ minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true })
    expect(p["pair"]).toMatchObject({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } })
    expect(p["headAndRest"]).toMatchObject({ type: "array", items: { anyOf: [{ type: "string" }, { type: "number" }] } })
    expect(p["byName"]).toMatchObject({ type: "object", additionalProperties: { type: "number" } })
    expect(p["byPattern"]).toMatchObject({ type: "object", additionalProperties: { type: "number" } })
    expect(p["withExample"]).toEqual({ type: "string", example: "hello" })
    expect(isObject(p["allOptional"]) && "required" in p["allOptional"]).toBe(false)
    // With no security declared, operations say nothing rather than `security: []`.
    expect(sample.paths["/things"]?.post?.security).toBeUndefined()
    // The framework's decode error is not declared by the endpoint, so it is not documented.
    expect(sample.paths["/things"]?.post?.responses["400"]).toBeUndefined()
  })
})

describe("OpenApiDocument: Idempotency-Key", () => {
  const document = OpenApiDocument.make({ api: Api, servers: [] }) as unknown as {
    paths: Record<string, { post?: { parameters?: ReadonlyArray<{ name: string; in: string; required?: boolean; description?: string }> } }>
  }
  it("declares the optional Idempotency-Key header on both creates, with its retention", () => {
    for (const path of ["/v1/pets", "/v1/messages"]) {
      const header = document.paths[path]?.post?.parameters?.find((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key")
      expect(header, path).toBeDefined()
      expect(header!.required ?? false).toBe(false)
      expect(header!.description).toMatch(/at least 24 hours/)
      expect(header!.description).toMatch(/PETSTORE_IDEMPOTENCY_TTL/)
    }
  })
})
