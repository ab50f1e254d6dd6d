/**
 * A strict HTTP/1.1 response reader, fed bytes as they arrive: status line, header fields (CRLF
 * line ends, token names, no obs-fold, no control bytes), and the body framed by RFC 9112 6.3
 * (none for HEAD, 1xx, 204 and 304; chunked; Content-Length; else until the close). Interim 1xx
 * answers are counted and skipped. Anything else is a protocol error, and a close in the middle of
 * an answer is a premature close.
 */

/** A complete final answer. @category models */
export interface Answer {
  readonly status: number
  /** Header values by lower-case name; repeated fields joined with ", ". */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  /** Whether the answer ends the connection (`Connection: close`, HTTP/1.0 without keep-alive, or a body read until the close). */
  readonly closes: boolean
}

/** @category models */
export interface ResponseReader {
  /** Takes bytes from the connection; returns the answers they completed. */
  readonly push: (bytes: Buffer) => ReadonlyArray<Answer>
  /** The connection ended: the answer read until the close, if one was. */
  readonly end: () => ReadonlyArray<Answer>
  /** Why the bytes are not HTTP/1.1 answers (then nothing more is read), or `undefined`. */
  readonly error: () => string | undefined
  readonly interim: () => number
}

const MAX_HEAD = 64 * 1024
const MAX_BODY = 16 * 1024 * 1024
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d) ([\t\x20-\x7e\x80-\xff]*)$/
const FIELD = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[\t ]*([\t\x20-\x7e\x80-\xff]*?)[\t ]*$/

type Head = { status: number; minor: number; headers: Record<string, string>; closes: boolean }
type State =
  | { readonly _tag: "head" }
  | { readonly _tag: "length"; readonly head: Head; readonly remaining: number }
  | { readonly _tag: "chunk-size"; readonly head: Head }
  | { readonly _tag: "chunk-data"; readonly head: Head; readonly remaining: number }
  | { readonly _tag: "chunk-end"; readonly head: Head }
  | { readonly _tag: "trailers"; readonly head: Head }
  | { readonly _tag: "until-close"; readonly head: Head }
  | { readonly _tag: "failed" }

type Of<T extends State["_tag"]> = Extract<State, { readonly _tag: T }>
/** What one step of reading gives: an answer, nothing yet (read on), or "wait" for more bytes. */
type Step = Answer | undefined | "wait"

/** A head's text (status line and fields, without the blank line), or why it is not one. */
const parseHead = (text: string): Head | string => {
  const lines = text.split("\r\n")
  const status = STATUS_LINE.exec(lines[0]!)
  if (status === null) return `not a status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`
  const headers: Record<string, string> = {}
  for (const l of lines.slice(1)) {
    const field = FIELD.exec(l)
    if (field === null) return `not a header field: ${JSON.stringify(l.slice(0, 80))}`
    const name = field[1]!.toLowerCase()
    headers[name] = headers[name] === undefined ? field[2]! : `${headers[name]}, ${field[2]!}`
  }
  const minor = Number(status[1])
  const connection = (headers["connection"] ?? "").toLowerCase().split(",").map((s) => s.trim())
  const closes = connection.includes("close") || (minor === 0 && !connection.includes("keep-alive"))
  return { status: Number(status[2]), minor, headers, closes }
}

/** How a final answer's body is framed (RFC 9112 6.3): the state that reads it, or why it cannot be read. */
const bodyFraming = (head: Head): State | "none" | string => {
  const te = head.headers["transfer-encoding"]
  const cl = head.headers["content-length"]
  if (te !== undefined) {
    if (cl !== undefined) return "both Transfer-Encoding and Content-Length"
    return /(^|,)\s*chunked\s*$/i.test(te) ? { _tag: "chunk-size", head } : { _tag: "until-close", head }
  }
  if (cl !== undefined) {
    const values = new Set(cl.split(",").map((s) => s.trim()))
    const [value] = values
    if (values.size !== 1 || !/^\d{1,15}$/.test(value!)) return `Content-Length ${JSON.stringify(cl)}`
    const n = Number(value)
    return n === 0 ? "none" : { _tag: "length", head, remaining: n }
  }
  return { _tag: "until-close", head }
}

/** The reading of one connection: the bytes not read yet, where the reader is, the body so far. */
class Reader {
  buffer: Buffer = Buffer.alloc(0)
  state: State = { _tag: "head" }
  private body: Array<Buffer> = []
  private bodySize = 0
  private answered = 0
  interimCount = 0
  failure: string | undefined

  constructor(private readonly methodOf: (index: number) => string | undefined) {}

  fail(why: string): void {
    this.failure = why
    this.state = { _tag: "failed" }
  }

  /** The answers the buffered bytes complete. */
  drain(): Array<Answer> {
    const out: Array<Answer> = []
    for (;;) {
      const result = this.step()
      if (result === "wait") return out
      if (result !== undefined) out.push(result)
    }
  }

  finish(head: Head, closes = head.closes): Answer {
    const answer = { status: head.status, headers: head.headers, body: Buffer.concat(this.body), closes }
    this.body = []
    this.bodySize = 0
    this.answered++
    this.state = { _tag: "head" }
    return answer
  }

  private step(): Step {
    const state = this.state
    switch (state._tag) {
      case "failed":
        return "wait"
      case "head":
        return this.readHead()
      case "length":
        return this.readLength(state)
      case "chunk-size":
        return this.readChunkSize(state)
      case "chunk-data":
        return this.readChunkData(state)
      case "chunk-end":
        return this.readChunkEnd(state)
      case "trailers":
        return this.readTrailer(state)
      case "until-close": {
        if (this.buffer.length > 0) this.takeBody(this.buffer.length)
        return "wait"
      }
    }
  }

  private line(): string | undefined {
    const at = this.buffer.indexOf("\r\n")
    if (at === -1) {
      if (this.buffer.length > MAX_HEAD) this.fail("a line longer than 64 KiB")
      return undefined
    }
    const text = this.buffer.subarray(0, at).toString("latin1")
    this.buffer = this.buffer.subarray(at + 2)
    return text
  }

  /** The next `n` bytes of the body; undefined when they take it over the bound (the reader has failed: it stops). */
  private takeBody(n: number): Buffer | undefined {
    const part = this.buffer.subarray(0, n)
    this.buffer = this.buffer.subarray(n)
    this.bodySize += part.length
    if (this.bodySize > MAX_BODY) return void this.fail("a body over 16 MiB")
    this.body.push(part)
    return part
  }

  private readHead(): Step {
    const at = this.buffer.indexOf("\r\n\r\n")
    if (at === -1) {
      if (this.buffer.length > MAX_HEAD) this.fail("a header block over 64 KiB")
      return "wait"
    }
    const text = this.buffer.subarray(0, at).toString("latin1")
    this.buffer = this.buffer.subarray(at + 4)
    const head = parseHead(text)
    if (typeof head === "string") {
      this.fail(head)
      return "wait"
    }
    return this.afterHead(head)
  }

  /** What follows a head: an interim answer skipped, or its body's framing. */
  private afterHead(head: Head): Step {
    if (head.status < 200) {
      this.interimCount++
      if (head.status === 101) {
        // The connection now speaks another protocol: nothing after this is read.
        const switched = this.finish(head, true)
        this.state = { _tag: "failed" }
        return switched
      }
      this.state = { _tag: "head" }
      return undefined
    }
    if (this.methodOf(this.answered) === "HEAD" || head.status === 204 || head.status === 304) return this.finish(head)
    const framing = bodyFraming(head)
    if (framing === "none") return this.finish(head)
    if (typeof framing === "string") return void this.fail(framing)
    this.state = framing
    return undefined
  }

  private readLength(state: Of<"length">): Step {
    if (this.buffer.length === 0) return "wait"
    const part = this.takeBody(Math.min(state.remaining, this.buffer.length))
    if (part === undefined) return "wait"
    const remaining = state.remaining - part.length
    if (remaining === 0) return this.finish(state.head)
    this.state = { ...state, remaining }
    return "wait"
  }

  private readChunkSize(state: Of<"chunk-size">): Step {
    const text = this.line()
    if (text === undefined) return "wait"
    const size = /^([0-9A-Fa-f]{1,12})[\t ]*(;.*)?$/.exec(text)
    if (size === null) return void this.fail(`not a chunk size: ${JSON.stringify(text.slice(0, 40))}`)
    const n = parseInt(size[1]!, 16)
    this.state = n === 0 ? { _tag: "trailers", head: state.head } : { _tag: "chunk-data", head: state.head, remaining: n }
    return undefined
  }

  private readChunkData(state: Of<"chunk-data">): Step {
    if (this.buffer.length === 0) return "wait"
    const part = this.takeBody(Math.min(state.remaining, this.buffer.length))
    if (part === undefined) return "wait"
    const remaining = state.remaining - part.length
    this.state = remaining === 0 ? { _tag: "chunk-end", head: state.head } : { ...state, remaining }
    return remaining === 0 ? undefined : "wait"
  }

  private readChunkEnd(state: Of<"chunk-end">): Step {
    if (this.buffer.length < 2) return "wait"
    if (this.buffer[0] !== 0x0d || this.buffer[1] !== 0x0a) return void this.fail("chunk data not followed by CRLF")
    this.buffer = this.buffer.subarray(2)
    this.state = { _tag: "chunk-size", head: state.head }
    return undefined
  }

  private readTrailer(state: Of<"trailers">): Step {
    const text = this.line()
    if (text === undefined) return "wait"
    if (text === "") return this.finish(state.head)
    if (FIELD.exec(text) === null) return void this.fail(`not a trailer field: ${JSON.stringify(text.slice(0, 80))}`)
    return undefined
  }
}

/**
 * A reader for one connection; `methodOf(i)` is the method of the request the i-th final answer
 * belongs to (a HEAD answer has no body).
 *
 * @category constructors
 */
export const make = (methodOf: (index: number) => string | undefined): ResponseReader => {
  const reader = new Reader(methodOf)
  return {
    push: (bytes) => {
      if (reader.state._tag === "failed") return []
      reader.buffer = reader.buffer.length === 0 ? bytes : Buffer.concat([reader.buffer, bytes])
      return reader.drain()
    },
    end: () => {
      const state = reader.state
      if (state._tag === "until-close") return [reader.finish(state.head, true)]
      if (state._tag === "failed") return []
      if (state._tag !== "head" || reader.buffer.length > 0) {
        reader.fail(state._tag === "head" ? `the connection closed in the middle of an answer's head (${reader.buffer.length} bytes)` : "the connection closed in the middle of an answer's body")
      }
      return []
    },
    error: () => reader.failure,
    interim: () => reader.interimCount
  }
}
