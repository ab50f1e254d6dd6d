/**
 * HTTP/1.1 over a raw socket, for tests that send what a well-behaved client never would: bytes as
 * they are, pipelined requests, bodies the server refuses, connections that never read.
 */
import { Effect } from "effect"
import * as Net from "node:net"

/** One answer read off the wire: status, headers (lower-case names), the body as text and as JSON. */
export interface RawAnswer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
  readonly body: any
}

/** Takes the complete answers off the start of `raw` (a `Content-Length` body each); returns them and what is left. */
const takeAnswers = (raw: string): { readonly taken: Array<RawAnswer>; readonly rest: string } => {
  const taken: Array<RawAnswer> = []
  let at = 0
  while (raw.startsWith("HTTP/1.1 ", at)) {
    const headEnd = raw.indexOf("\r\n\r\n", at)
    if (headEnd < 0) break
    const [statusLine, ...lines] = raw.slice(at, headEnd).split("\r\n")
    const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]))
    const length = Number(headers["content-length"] ?? 0)
    if (raw.length < headEnd + 4 + length) break
    const text = raw.slice(headEnd + 4, headEnd + 4 + length)
    let body: unknown = undefined
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      body = undefined
    }
    taken.push({ status: Number(statusLine!.split(" ")[1]), headers, text, body })
    at = headEnd + 4 + length
  }
  return { taken, rest: raw.slice(at) }
}

/** The complete answers at the start of `raw`, in order. */
export const answers = (raw: string): Array<RawAnswer> => takeAnswers(raw).taken

/** How a connection ended, seen from the client. */
export interface Ending {
  /** Everything received, as latin1 text. */
  readonly raw: string
  /** The connection was reset (ECONNRESET / EPIPE) rather than closed. */
  readonly reset: boolean
}

/** Sends `bytes` on a new connection and reads everything until the server closes it (at most `limitMs`). */
export const exchange = (url: string, bytes: string | Uint8Array, limitMs = 5_000) =>
  Effect.map(exchangeEnding(url, bytes, limitMs), (ending) => ending.raw)

/**
 * As `exchange`, also telling whether the connection was reset. With `halfClose` the client closes
 * its side right after the bytes (and still reads).
 */
export const exchangeEnding = (url: string, bytes: string | Uint8Array, limitMs = 5_000, halfClose = false) =>
  Effect.promise(() =>
    new Promise<Ending>((resolve) => {
      const { hostname, port } = new URL(url)
      const socket = Net.connect(Number(port), hostname)
      const chunks: Array<Buffer> = []
      let reset = false
      const timer = setTimeout(() => socket.destroy(), limitMs)
      socket.on("data", (chunk) => chunks.push(chunk))
      socket.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "ECONNRESET" || error.code === "EPIPE") reset = true
      })
      socket.on("close", () => {
        clearTimeout(timer)
        resolve({ raw: Buffer.concat(chunks).toString("latin1"), reset })
      })
      if (halfClose) socket.end(bytes)
      else socket.write(bytes)
    })
  )

/** A connection the test drives by hand: write, stop and start reading, wait for answers. */
export interface RawConnection {
  readonly socket: Net.Socket
  readonly write: (bytes: string | Uint8Array) => void
  /** Everything received so far. */
  readonly received: () => string
  /** Resumes reading and waits until `count` complete answers arrived or the connection closed (at most `limitMs`). */
  readonly awaitAnswers: (count: number, limitMs?: number) => Promise<Array<RawAnswer>>
  readonly closed: () => boolean
}

/** Opens a connection; with `reading: false` it reads nothing until `awaitAnswers` is called. */
export const connect = (url: string, options: { readonly reading?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<RawConnection>((resolve, reject) => {
        const { hostname, port } = new URL(url)
        const socket = Net.connect(Number(port), hostname)
        const chunks: Array<Buffer> = []
        const parsed: Array<RawAnswer> = []
        let unparsed = ""
        let closed = false
        let waiter: (() => void) | undefined
        socket.on("error", () => {})
        socket.on("data", (chunk) => {
          chunks.push(chunk)
          const { rest, taken } = takeAnswers(unparsed + chunk.toString("latin1"))
          unparsed = rest
          for (const answer of taken) parsed.push(answer)
          waiter?.()
        })
        socket.on("close", () => {
          closed = true
          waiter?.()
        })
        if (options.reading === false) socket.pause()
        const received = () => Buffer.concat(chunks).toString("latin1")
        socket.once("connect", () =>
          resolve({
            socket,
            write: (bytes) => socket.write(bytes),
            received,
            closed: () => closed,
            awaitAnswers: (count, limitMs = 10_000) =>
              new Promise((done) => {
                const timer = setTimeout(() => finish(), limitMs)
                const finish = () => {
                  clearTimeout(timer)
                  waiter = undefined
                  done(parsed)
                }
                waiter = () => {
                  if (closed || parsed.length >= count) finish()
                }
                socket.resume()
                waiter()
              })
          }))
        socket.once("error", reject)
      })
    ),
    (connection) => Effect.sync(() => connection.socket.destroy())
  )

/** A request as bytes: `POST`-style with a JSON body when `json` is given. */
export const request = (method: string, path: string, options: { readonly key?: string; readonly json?: unknown; readonly headers?: string } = {}) => {
  const body = options.json === undefined ? "" : JSON.stringify(options.json)
  const auth = options.key === undefined ? "" : `Authorization: Bearer ${options.key}\r\n`
  const type = options.json === undefined ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`
  return `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth}${type}${options.headers ?? ""}\r\n${body}`
}
