/**
 * Bodies as the application receives them, whoever read them: the bytes a server read, or what a
 * host framework's parser left behind (`req.body`), which goes through the same checks as bytes.
 *
 * @internal
 */
import type { BodyResult } from "../../AppRequest.js"

export const EMPTY: BodyResult = { _tag: "Body", bytes: new Uint8Array(0) }
export const TOO_LARGE: BodyResult = { _tag: "TooLarge" }
export const CONSUMED: BodyResult = { _tag: "Consumed" }

/** Whether a declared `Content-Length` already exceeds `limit` (the body is then not read). */
export const declaredTooLarge = (contentLength: string | null | undefined, limit: number): boolean =>
  contentLength !== undefined && contentLength !== null && Number(contentLength) > limit

const serialize = (value: unknown): Uint8Array | undefined => {
  try {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : Buffer.from(text)
  } catch {
    return undefined
  }
}

/**
 * The body a host's parser left: bytes (a raw parser) and text are taken as the body itself; a
 * parsed value (a JSON parser's object) is written back as JSON, so the application checks its
 * media type, size, nesting and fields exactly as for bytes it read itself. A value that cannot
 * be written back (a cycle, a BigInt) leaves the body unusable.
 */
export const fromHost = (body: unknown, contentLength: string | null | undefined, limit: number): BodyResult => {
  if (declaredTooLarge(contentLength, limit)) return TOO_LARGE
  const bytes = body instanceof Uint8Array ? body : typeof body === "string" ? Buffer.from(body) : serialize(body)
  if (bytes === undefined) return CONSUMED
  return bytes.length > limit ? TOO_LARGE : { _tag: "Body", bytes }
}

/** Reads a web stream to its end, or stops (and cancels it) past `limit` bytes. */
export const readStream = async (
  stream: ReadableStream<Uint8Array> | null,
  contentLength: string | null | undefined,
  limit: number
): Promise<BodyResult> => {
  if (declaredTooLarge(contentLength, limit)) return TOO_LARGE
  if (stream === null) return EMPTY
  const reader = stream.getReader()
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > limit) {
      await reader.cancel()
      return TOO_LARGE
    }
    chunks.push(value)
  }
  const bytes = new Uint8Array(size)
  let offset = 0
  for (const c of chunks) {
    bytes.set(c, offset)
    offset += c.length
  }
  return { _tag: "Body", bytes }
}
