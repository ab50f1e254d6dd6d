/**
 * The served OpenAPI document as JSON: its values, JSON pointers into it, `$ref`s followed, and
 * OpenAPI 3.0's `nullable` as JSON Schema says it.
 *
 * @since 1.0.0
 */

/** A JSON value. @category models */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [k: string]: Json }
/** A JSON object. @category models */
export type JsonObject = { readonly [k: string]: Json }

export const isObject = (j: unknown): j is JsonObject => typeof j === "object" && j !== null && !Array.isArray(j)

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

/** A JSON pointer (`#/paths/~1v1~1pets/get`) to the value at `segments`. */
export const pointer = (...segments: ReadonlyArray<string>): string =>
  "#" + segments.map((s) => "/" + s.replace(/~/g, "~0").replace(/\//g, "~1")).join("")

/** `j` with its local `$ref`s followed in `document` (at most 16 deep). */
export const resolveIn = (document: JsonObject) => (j: Json | undefined): Json | undefined => {
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
