/**
 * One raw HTTP/1.1 request as the fuzzer sends it: its exact bytes, and what the interface says
 * about its answer (whether one is due, which statuses, which headers).
 */

/**
 * How the request's framing stands:
 * - `valid`: well-formed HTTP/1.1; it gets an answer and the connection goes on (unless it or its
 *   answer closes it);
 * - `broken`: the framing is invalid (RFC 9112 says reject); it gets a 4xx Error answer and nothing
 *   after it on the connection is answered;
 * - `doubtful`: a server may reject it as broken or serve it; either way it gets an answer, and what
 *   follows is answered unless that answer closes the connection.
 *
 * @category models
 */
export type Framing = "valid" | "broken" | "doubtful"

/** @category models */
export interface RawRequest {
  /** The input class, e.g. `"json"`, `"header shape"` (reported in the counts). */
  readonly kind: string
  /** What this request is, in a few words (e.g. `duplicate Content-Length 5, 6`). */
  readonly note: string
  readonly bytes: Uint8Array
  readonly method: string
  readonly framing: Framing
  /** The answer must carry the rate-limit headers (docs/api.md: every answer of the public API). */
  readonly rateLimited: boolean
  /**
   * It carries the fuzzer's valid key, to a path that is not open (health, documents, admin API):
   * its answer carries the rate-limit headers unless it is a refusal docs/api.md lists as coming
   * before authentication (see `Oracle.isRefusalBeforeAuthentication`).
   */
  readonly keyed: boolean
  /** The statuses the interface allows for it, where it fixes them. */
  readonly statuses: ReadonlyArray<number> | undefined
  /** The request itself ends the connection after its answer (`Connection: close`, HTTP/1.0). */
  readonly asksClose: boolean
  /** Its body is never sent whole (a declared length the server must refuse before reading). */
  readonly incomplete: boolean
  /**
   * It asks to switch protocols (`Upgrade`): until its answer, what follows may be read as another
   * protocol, so requests pipelined behind it are owed nothing (RFC 9110 7.8).
   */
  readonly switches: boolean
}

/**
 * The requests of one connection and how they are sent: all at once (`pipelined`) or each after the
 * previous answer (`sequential`), cut into fragments at `cuts` (byte offsets, taken modulo the
 * length), with `pauseMs` between fragments, and the client's side closed after the last write
 * (`halfClose`, the FIN going with the last bytes) or kept open until the answers are in.
 *
 * @category models
 */
export interface ConnectionScript {
  readonly requests: ReadonlyArray<RawRequest>
  readonly delivery: "pipelined" | "sequential"
  readonly cuts: ReadonlyArray<number>
  readonly pauseMs: number
  readonly halfClose: boolean
}

/** The parts of a request; header lines are raw text so that any shape can be written. @category models */
export interface RequestParts {
  readonly method: string
  readonly target: string
  /** `HTTP/1.1` by default; `null` leaves the version out (an HTTP/0.9-style request line). */
  readonly version?: string | null
  /** Whole header lines without their line end, e.g. `"Host: x"`, `" folded"`. */
  readonly headerLines: ReadonlyArray<string>
  readonly body?: Uint8Array | string | undefined
  /** The line end of the request line and headers (`\r\n` unless a shape needs another). */
  readonly lineEnd?: string
}

/** Text as bytes, one byte per character (so `\xff` is the byte 0xff), for heads. @category constructors */
export const latin1 = (text: string): Uint8Array => Buffer.from(text, "latin1")

/** Text as UTF-8 bytes, for bodies. @category constructors */
export const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8")

/** The bytes of a request from its parts; no header is added. @category constructors */
export const assemble = (parts: RequestParts): Uint8Array => {
  const end = parts.lineEnd ?? "\r\n"
  const version = parts.version === undefined ? "HTTP/1.1" : parts.version
  const requestLine = version === null ? `${parts.method} ${parts.target}` : `${parts.method} ${parts.target} ${version}`
  const head = latin1(`${requestLine}${end}${parts.headerLines.map((l) => `${l}${end}`).join("")}${end}`)
  const body = parts.body === undefined ? new Uint8Array(0) : typeof parts.body === "string" ? utf8(parts.body) : parts.body
  return Buffer.concat([head, body])
}

/** The bytes of several requests one after the other. @category constructors */
export const concat = (requests: ReadonlyArray<RawRequest>): Uint8Array => Buffer.concat(requests.map((r) => r.bytes))

/**
 * The bytes as a readable JavaScript string literal (printable ASCII as is, the rest escaped),
 * shortened to `max` characters around the middle.
 *
 * @category formatting
 */
export const show = (bytes: Uint8Array, max = 600): string => {
  let text = ""
  for (const b of bytes) {
    text += b === 0x5c ? "\\\\" : b === 0x22 ? "\\\"" : b === 0x0d ? "\\r" : b === 0x0a ? "\\n" : b === 0x09 ? "\\t"
      : b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, "0")}`
  }
  if (text.length <= max) return `"${text}"`
  const keep = Math.floor((max - 40) / 2)
  return `"${text.slice(0, keep)}" + … ${text.length - 2 * keep} more characters … + "${text.slice(-keep)}"`
}
