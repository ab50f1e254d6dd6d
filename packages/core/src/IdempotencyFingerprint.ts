/**
 * What a key is bound to: the operation and its decoded input. Two requests with one key are the
 * same request when their fingerprints are equal; the input is canonical JSON (object keys sorted),
 * so a retry that serializes the same object in another order, or with fields the operation ignores,
 * still matches.
 *
 * @since 1.0.0
 */
import { hash } from "node:crypto"

/** `value` as JSON with every object's keys in sorted order (undefined fields left out, as JSON does). */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
  // Built by concatenation (no array of parts per object): a fingerprint is taken on every keyed create.
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i])
    return `${out}]`
  }
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).sort()
  let out = "{"
  for (let i = 0; i < keys.length; i++) {
    const field = record[keys[i]!]
    if (field !== undefined) out += (out.length === 1 ? "" : ",") + JSON.stringify(keys[i]) + ":" + canonicalJson(field)
  }
  return `${out}}`
}

/**
 * The SHA-256 (hex) of the operation's name, a newline and its decoded input in canonical JSON. One
 * call of the one-shot `crypto.hash` (no Hash object per request); the digest is the same as ever, so
 * records kept before still match.
 */
export const of = (operation: string, input: unknown): string => hash("sha256", `${operation}\n${canonicalJson(input)}`, "hex")
