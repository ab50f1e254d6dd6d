/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): 1 to 255
 * printable ASCII characters, sent either as the draft's quoted sf-string (`"abc"`, with `\"` and
 * `\\` escapes) or bare (`abc`), as most clients send it. Both forms name the same key. A bare key
 * has no comma: HTTP joins two fields of one name with one (`a, b`), so a request that carries two
 * `Idempotency-Key` fields is refused rather than read as a key of its own; a key with a comma is
 * sent quoted.
 *
 * @since 1.0.0
 */
import * as Brand from "effect/Brand"
import * as Data from "effect/Data"
import * as Result from "effect/Result"

/** A key as the client chose it, unquoted. */
export type IdempotencyKey = string & Brand.Brand<"IdempotencyKey">

/** The longest key, in characters. */
export const MAX_LENGTH = 255

/** The header's value cannot be a key; `reason` says why. @category errors */
export class InvalidIdempotencyKey extends Data.TaggedError("InvalidIdempotencyKey")<{ readonly reason: string }> {}

const isPrintable = (code: number): boolean => code >= 0x20 && code <= 0x7e

const invalid = (reason: string) => Result.fail(new InvalidIdempotencyKey({ reason }))

/** The quoted form's content: `\"` and `\\` stand for `"` and `\`, any other escape or a bare `"` is refused. */
const unquote = (value: string): Result.Result<string, InvalidIdempotencyKey> => {
  let key = ""
  for (let i = 1; i < value.length - 1; i++) {
    const c = value[i]!
    if (c === "\\") {
      const next = value[i + 1]
      if (next !== "\"" && next !== "\\" || i + 1 === value.length - 1) {
        return invalid("a quoted key may escape only `\"` and `\\`")
      }
      key += next
      i++
    } else if (c === "\"") {
      return invalid("a quoted key must escape `\"` inside it")
    } else {
      key += c
    }
  }
  return Result.succeed(key)
}

/**
 * The key a header value names, or why it names none. Surrounding spaces are not part of it (HTTP
 * trims them); inside, a key is printable ASCII only.
 */
export const parse = (header: string): Result.Result<IdempotencyKey, InvalidIdempotencyKey> => {
  const value = header.trim()
  for (let i = 0; i < value.length; i++) {
    if (!isPrintable(value.charCodeAt(i))) return invalid("a key is printable ASCII only (no control or non-ASCII characters)")
  }
  const quoted = value.length >= 2 && value.startsWith("\"") && value.endsWith("\"")
  if (!quoted && value.includes("\"")) return invalid("a key is either bare or a whole quoted string")
  if (!quoted && value.includes(",")) {
    return invalid("one Idempotency-Key field only, and a bare key has no comma (quote a key that has one)")
  }
  const key = quoted ? unquote(value) : Result.succeed(value)
  if (Result.isFailure(key)) return Result.fail(key.failure)
  if (key.success.length === 0) return invalid("a key has 1 to 255 characters; it is empty")
  if (key.success.length > MAX_LENGTH) return invalid(`a key has 1 to 255 characters; it has ${key.success.length}`)
  return Result.succeed(key.success as IdempotencyKey)
}

/** `key` in the draft's sf-string form, as a client following the draft sends it. */
export const quote = (key: string): string => `"${key.replace(/[\\"]/g, (c) => `\\${c}`)}"`
