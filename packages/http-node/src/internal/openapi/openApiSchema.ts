/**
 * The document's schemas: JSON Schema 2020-12 (the OpenAPI 3.1 dialect `OpenApi.fromApi` emits on the
 * 3.x line) converted to OpenAPI 3.0.3 Schema Objects, the `Error` component with its stable codes,
 * and the components a document keeps (those its operations reach).
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { ERROR_CODES, ErrorBody } from "../../ErrorResponse.js"
import type { Json, JsonObject, Reference } from "./documentModel.js"
import { asJson, isObject, jsonEqual, mapValues, omit, refsUnder } from "../json.js"

/** Where component schemas live; a `$ref` to one starts with it. */
export const SCHEMAS = "#/components/schemas/"

/** The `Error` component: the body of every error response. */
export const ERROR_REF: Reference = { $ref: `${SCHEMAS}Error` }

// ---------------------------------------------------------------------------------------------
// JSON Schema 2020-12 (OpenAPI 3.1) → OpenAPI 3.0.3 Schema Object
// ---------------------------------------------------------------------------------------------

/** The keywords of a 3.0.3 Schema Object kept; anything else (`$id`, `$defs`, `if` ...) is dropped, and so is `title`: Effect's refinements title their schemas (`"int"`), which generators turn into type names. */
const SCHEMA_KEYWORDS_30: ReadonlySet<string> = new Set([
  "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength",
  "minLength", "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties",
  "required", "enum", "type", "not", "allOf", "oneOf", "anyOf", "items", "properties",
  "additionalProperties", "description", "format", "default", "nullable", "discriminator", "readOnly",
  "writeOnly", "example", "externalDocs", "deprecated", "xml", "$ref"
])

/** A schema that admits only `null` once converted (3.0 has no `null` type). */
const isNullOnly = (s: JsonObject): boolean =>
  s.nullable === true && jsonEqual(s.enum, [null]) &&
  // Effect 4 writes the null literal as `{type: "object", enum: [null]}`: its type says nothing more.
  Object.keys(s).every((k) => k === "nullable" || k === "enum" || k === "description" || k === "title" || k === "type")

const anyOfOrOne = (members: ReadonlyArray<JsonObject>): JsonObject =>
  members.length === 1 ? members[0]! : { anyOf: members }

/**
 * Converts one schema. Children are converted first, so a parent sees 3.0 children only
 * (a converted `{type:"null"}` branch is `{nullable:true, enum:[null]}`).
 */
/** Effect's bounds of every integer (the safe integers): not written where a schema sets no bound of its own. */
const SAFE_MAX = Number.MAX_SAFE_INTEGER

export const toSchema30 = (input: Json | undefined): JsonObject => {
  if (input === false) return { not: {} }
  if (!isObject(input)) return {}
  const out: Record<string, Json> = {}
  // Bodies are read with unknown fields ignored: the document does not forbid them.
  if (input.additionalProperties === false) input = omit(input, "additionalProperties")
  // An integer's implicit bounds (±2^53 − 1) are left out; an identifier's format says int64 and keeps its maximum.
  if (input.type === "integer" && input.minimum === -SAFE_MAX) input = omit(input, "minimum")
  if (input.type === "integer" && input.maximum === SAFE_MAX && input.format !== "int64") input = omit(input, "maximum")
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
  if (isNonNegativeInt(out)) return nonNegativeInt(out.description)
  // In 3.0 the siblings of `$ref` are ignored; wrapping the reference keeps their meaning.
  if (typeof out.$ref === "string" && Object.keys(out).length > 1) {
    const { $ref, ...siblings } = out
    return { allOf: [{ $ref }], ...siblings }
  }
  return out
}

/** The `Int` component: an integer, referred to by the non-negative integers (`nonNegativeInt`). */
export const INT_COMPONENT: JsonObject = { type: "integer", description: "an integer" }

/** A non-negative integer with no other constraint (a count), as Schema 4 writes `Int.check(isGreaterThanOrEqualTo(0))`. */
const isNonNegativeInt = (s: JsonObject): boolean =>
  s.type === "integer" && s.minimum === 0 &&
  Object.keys(s).every((k) => k === "type" || k === "minimum" || k === "description")

/**
 * A non-negative integer as the document has always written it (Effect 3's `Schema.Int.pipe(Schema.nonNegative())`):
 * a reference to the `Int` component with the bound beside it, described by its own description or
 * "a non-negative number". Kept so that the served document did not change with Effect 4.
 */
const nonNegativeInt = (description: Json | undefined): JsonObject => ({
  allOf: [{ $ref: `${SCHEMAS}Int` }],
  description: typeof description === "string" ? description : "a non-negative number",
  minimum: 0
})

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

// ---------------------------------------------------------------------------------------------
// The components
// ---------------------------------------------------------------------------------------------

/** The Error schema with `code` one of the stable codes (the core types it as a string; the codes are HTTP's). */
const withCodeEnum = (error: JsonObject): JsonObject => {
  const properties = error.properties as JsonObject
  return {
    ...error,
    properties: { ...properties, code: { ...(properties.code as JsonObject), enum: Object.keys(ERROR_CODES) } }
  }
}

/**
 * Every component schema: the framework's (`source`, by name) converted, the schemas the core's
 * Error body refers to, `Int` (kept where a non-negative integer refers to it) and `Error` itself.
 */
export const components = (source: { readonly [name: string]: unknown }): { readonly [name: string]: JsonObject } => {
  const errorDefs: Record<string, unknown> = {}
  const document = Schema.toJsonSchemaDocument(ErrorBody)
  Object.assign(errorDefs, document.definitions)
  const root = document.schema as { readonly $ref?: string }
  const errorSchema = toSchema30(asJson(
    typeof root.$ref === "string" ? document.definitions[root.$ref.slice("#/$defs/".length)] : root
  ))
  return {
    ...mapValues({ ...source, ...errorDefs }, (s) => toSchema30(asJson(s))),
    Int: INT_COMPONENT,
    Error: withCodeEnum(errorSchema)
  }
}

/** A schema equal to one of `schemas` but for its description becomes a reference to it; any other stays as is. */
export const referencing = (
  schemas: { readonly [name: string]: JsonObject }
): (schema: JsonObject) => JsonObject => {
  const named = Object.entries(schemas)
  return (schema: JsonObject): JsonObject => {
    // A reference to a component that only differs from an earlier one by its description (the
    // framework makes one per description given to a success schema) is to that earlier one.
    const target = typeof schema.$ref === "string" && schema.$ref.startsWith(SCHEMAS)
      ? schemas[schema.$ref.slice(SCHEMAS.length)]
      : undefined
    const bare = omit(target ?? schema, "description")
    const match = named.find(([, component]) => jsonEqual(omit(component, "description"), bare))
    return match === undefined ? schema : { $ref: `${SCHEMAS}${match[0]}` }
  }
}

/** The component schemas reachable from `roots`, in the components' order. */
export const reachable = (
  schemas: { readonly [name: string]: JsonObject },
  roots: ReadonlyArray<Json>
): { readonly [name: string]: JsonObject } => {
  const seen = new Set<string>()
  const queue = roots.flatMap((root) => refsUnder(SCHEMAS, root))
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (seen.has(name) || schemas[name] === undefined) continue
    seen.add(name)
    queue.push(...refsUnder(SCHEMAS, schemas[name]))
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => seen.has(name)))
}
