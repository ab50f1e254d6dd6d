/**
 * JSON values as the OpenAPI document's modules handle them: a guard, structural equality, two
 * copies with a change, and the `$ref`s a value holds.
 *
 * @internal
 */
import type { Json, JsonObject } from "./openapi/documentModel.js"

/** Whether `u` is a JSON object (neither `null` nor an array). */
export const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** A value the framework types loosely (its schemas, its extensions), taken as the JSON it is. */
export const asJson = (u: unknown): Json => u as Json

/** Structural equality: arrays item by item, objects key by key whatever the keys' order. */
export const jsonEqual = (a: Json | undefined, b: Json | undefined): boolean => {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a)
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && jsonEqual(a[k], b[k]))
  }
  return false
}

/** `o` without `key`. */
export const omit = (o: JsonObject, key: string): JsonObject => {
  const { [key]: _, ...rest } = o
  return rest
}

/** `o` with `f` applied to each value, in the same key order. */
export const mapValues = <A, B>(o: { readonly [k: string]: A }, f: (a: A) => B): { [k: string]: B } =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]))

/** The names `$ref`s anywhere in `json` point to under `prefix` (`#/components/schemas/` ...), prefix removed. */
export const refsUnder = (prefix: string, json: Json | undefined): ReadonlyArray<string> =>
  Array.isArray(json)
    ? json.flatMap((item) => refsUnder(prefix, item))
    : isObject(json)
    ? Object.entries(json).flatMap(([k, v]) =>
      k === "$ref" && typeof v === "string" && v.startsWith(prefix) ? [v.slice(prefix.length)] : refsUnder(prefix, v)
    )
    : []
