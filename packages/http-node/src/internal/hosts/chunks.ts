/**
 * A body of bytes (`AppResponse.bytes`) as each host writes it: in chunks, the next one only once
 * the client has taken the one before (node's `write` returning false, then `drain`; a web stream's
 * `pull`). A chunk is a view of the shared bytes, never a copy, so a connection that does not read
 * holds the server to about one chunk per answer (plus node's socket buffer), not the whole body.
 *
 * @internal
 */
import type { ServerResponse } from "node:http"
import { Readable } from "node:stream"

/** Bytes per write: node's default high-water mark, so one write fills what node buffers before it says wait. */
export const CHUNK_BYTES = 16 * 1024

/** The chunk of `bytes` starting at `offset`. */
export const chunkAt = (bytes: Uint8Array, offset: number): Uint8Array =>
  bytes.subarray(offset, Math.min(offset + CHUNK_BYTES, bytes.length))

/**
 * Writes `bytes` to `response` (its header block already set) and ends it: a chunk at a time, on
 * `drain` when node asks to wait. A response closed meanwhile (the client went away) is left as is.
 */
export const writeChunked = (response: ServerResponse, bytes: Uint8Array): void => {
  let offset = 0
  const pump = (): void => {
    while (!response.destroyed) {
      const chunk = chunkAt(bytes, offset)
      offset += chunk.length
      if (offset >= bytes.length) return void response.end(chunk)
      if (!response.write(chunk)) return void response.once("drain", pump)
    }
  }
  pump()
}

/** `bytes` as a web stream that hands out a chunk when its reader asks for one (nothing queued ahead). */
export const webStream = (bytes: Uint8Array): ReadableStream<Uint8Array> => {
  let offset = 0
  return new ReadableStream<Uint8Array>({
    pull: (controller) => {
      const chunk = chunkAt(bytes, offset)
      offset += chunk.length
      controller.enqueue(chunk)
      if (offset >= bytes.length) controller.close()
    }
  }, { highWaterMark: 0 })
}

/** `bytes` as a node stream of chunks, read as the destination asks (Fastify pipes it to the socket). */
export const readable = (bytes: Uint8Array): Readable => {
  let offset = 0
  return new Readable({
    highWaterMark: CHUNK_BYTES,
    read() {
      const chunk = chunkAt(bytes, offset)
      offset += chunk.length
      this.push(chunk)
      if (offset >= bytes.length) this.push(null)
    }
  })
}
