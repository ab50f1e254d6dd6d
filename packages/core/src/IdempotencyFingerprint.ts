/**
 * What a key is bound to: the operation and its decoded input. Two requests with one key are the
 * same request when their fingerprints are equal; the input is canonical JSON (object keys sorted),
 * so a retry that serializes the same object in another order, or with fields the operation ignores,
 * still matches.
 *
 * @since 1.0.0
 */
import { createHash } from "node:crypto"

/** `value` as JSON with every object's keys in sorted order (undefined fields left out, as JSON does). */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  const record = value as Record<string, unknown>
  const fields: Array<string> = []
  for (const key of Object.keys(record).sort()) {
    if (record[key] !== undefined) fields.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`)
  }
  return `{${fields.join(",")}}`
}

/** The SHA-256 (hex) of the operation's name and its decoded input in canonical JSON. */
export const of = (operation: string, input: unknown): string =>
  createHash("sha256").update(operation).update("\n").update(canonicalJson(input)).digest("hex")
