/**
 * Request ids: the `X-Request-Id` a client or a proxy sent, kept when it is well-formed, otherwise
 * a new random one. The id is written on the response and on every log line of the request.
 */
import { randomUUID } from "node:crypto"

/** The header that carries the id, in and out. */
export const HEADER = "X-Request-Id"

/** Longest id taken from a request. */
export const MAX_LENGTH = 128

// Letters, digits and `. _ ~ : / + = -`: UUIDs, ULIDs, base64 and the ids proxies and tracing
// systems write, but no space, quote, comma or control character, so an id is safe in any log format.
const WELL_FORMED = new RegExp(`^[A-Za-z0-9._~:/+=-]{1,${MAX_LENGTH}}$`)

/** Whether `value` is kept as the request's id (1 to 128 characters of `[A-Za-z0-9._~:/+=-]`). */
export const isWellFormed = (value: string): boolean => WELL_FORMED.test(value)

/**
 * The id of a request carrying `header` (the value of `X-Request-Id`, if any); a new one is a
 * random UUID (122 random bits, so ids cannot be guessed; cheap, from node's entropy cache).
 */
export const of = (header: string | undefined): string =>
  header !== undefined && WELL_FORMED.test(header) ? header : randomUUID()

/** The id of a request node:http parsed (or began to parse): `of` its `X-Request-Id`. */
export const ofNode = (headers: { readonly [name: string]: string | ReadonlyArray<string> | undefined } | undefined): string => {
  const header = headers?.["x-request-id"]
  return of(typeof header === "string" ? header : undefined)
}
