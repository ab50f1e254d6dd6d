/**
 * Reading a request body as JSON: strict UTF-8, and at most `MAX_DEPTH` levels of nesting, checked
 * in one pass over the bytes before parsing, so that no later step (validation, its messages) ever
 * walks a value deep enough to exhaust the stack.
 */
import * as Result from "effect/Result"
import type { JsonRefusal } from "../ErrorResponse.js"

/** Deeper than any body of the interface needs (a pet is 1 level; the admin API 2). */
export const MAX_DEPTH = 32

const utf8 = new TextDecoder("utf-8", { fatal: true })

const OPEN_OBJECT = 0x7b
const OPEN_ARRAY = 0x5b
const CLOSE_OBJECT = 0x7d
const CLOSE_ARRAY = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Whether brackets outside strings nest deeper than `max` (the bytes need not be valid JSON). */
export const nestsDeeperThan = (bytes: Uint8Array, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (inString) {
      if (b === BACKSLASH) i++
      else if (b === QUOTE) inString = false
    } else if (b === QUOTE) {
      inString = true
    } else if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      if (++depth > max) return true
    } else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
      depth--
    }
  }
  return false
}

/** The parsed body, or why it is not acceptable JSON (for an `invalid_json` answer). */
export const parse = (bytes: Uint8Array): Result.Result<unknown, JsonRefusal> => {
  if (nestsDeeperThan(bytes, MAX_DEPTH)) return Result.fail({ _tag: "TooDeep", maxDepth: MAX_DEPTH })
  try {
    return Result.succeed(JSON.parse(utf8.decode(bytes)))
  } catch (e) {
    return Result.fail({ _tag: "NotJson", detail: (e as Error).message })
  }
}
