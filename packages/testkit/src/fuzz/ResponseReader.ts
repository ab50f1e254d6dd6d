/**
 * A strict HTTP/1.1 response reader, fed bytes as they arrive: status line, header fields (CRLF
 * line ends, token names, no obs-fold, no control bytes), and the body framed by RFC 9112 6.3
 * (none for HEAD, 1xx, 204 and 304; chunked; Content-Length; else until the close). Interim 1xx
 * answers are counted and skipped. Anything else is a protocol error, and a close in the middle of
 * an answer is a premature close.
 *
 * @since 1.0.0
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

/**
 * A reader for one connection; `methodOf(i)` is the method of the request the i-th final answer
 * belongs to (a HEAD answer has no body).
 *
 * @category constructors
 */
export const make = (methodOf: (index: number) => string | undefined): ResponseReader => {
  let buffer: Buffer = Buffer.alloc(0)
  let state: State = { _tag: "head" }
  let body: Array<Buffer> = []
  let bodySize = 0
  let answered = 0
  let interimCount = 0
  let failure: string | undefined

  const fail = (why: string): void => {
    failure = why
    state = { _tag: "failed" }
  }

  const line = (): string | undefined => {
    const at = buffer.indexOf("\r\n")
    if (at === -1) {
      if (buffer.length > MAX_HEAD) fail("a line longer than 64 KiB")
      return undefined
    }
    const text = buffer.subarray(0, at).toString("latin1")
    buffer = buffer.subarray(at + 2)
    return text
  }

  const parseHead = (text: string): Head | undefined => {
    const lines = text.split("\r\n")
    const status = STATUS_LINE.exec(lines[0]!)
    if (status === null) return void fail(`not a status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`)
    const headers: Record<string, string> = {}
    for (const l of lines.slice(1)) {
      const field = FIELD.exec(l)
      if (field === null) return void fail(`not a header field: ${JSON.stringify(l.slice(0, 80))}`)
      const name = field[1]!.toLowerCase()
      headers[name] = headers[name] === undefined ? field[2]! : `${headers[name]}, ${field[2]!}`
    }
    const minor = Number(status[1])
    const connection = (headers["connection"] ?? "").toLowerCase().split(",").map((s) => s.trim())
    const closes = connection.includes("close") || (minor === 0 && !connection.includes("keep-alive"))
    return { status: Number(status[2]), minor, headers, closes }
  }

  const finish = (head: Head, closes = head.closes): Answer => {
    const answer = { status: head.status, headers: head.headers, body: Buffer.concat(body), closes }
    body = []
    bodySize = 0
    answered++
    state = { _tag: "head" }
    return answer
  }

  const takeBody = (n: number): Buffer => {
    const part = buffer.subarray(0, n)
    buffer = buffer.subarray(n)
    bodySize += part.length
    if (bodySize > MAX_BODY) fail("a body over 16 MiB")
    body.push(part)
    return part
  }

  /** What follows a head: its body's framing (RFC 9112 6.3). */
  const afterHead = (head: Head): Answer | undefined => {
    if (head.status < 200) {
      interimCount++
      if (head.status === 101) {
        // The connection now speaks another protocol: nothing after this is read.
        const switched = finish(head, true)
        state = { _tag: "failed" }
        return switched
      }
      state = { _tag: "head" }
      return undefined
    }
    if (methodOf(answered) === "HEAD" || head.status === 204 || head.status === 304) return finish(head)
    const te = head.headers["transfer-encoding"]
    const cl = head.headers["content-length"]
    if (te !== undefined) {
      if (cl !== undefined) return void fail("both Transfer-Encoding and Content-Length")
      if (!/(^|,)\s*chunked\s*$/i.test(te)) {
        state = { _tag: "until-close", head }
        return undefined
      }
      state = { _tag: "chunk-size", head }
      return undefined
    }
    if (cl !== undefined) {
      const values = new Set(cl.split(",").map((s) => s.trim()))
      const [value] = values
      if (values.size !== 1 || !/^\d{1,15}$/.test(value!)) return void fail(`Content-Length ${JSON.stringify(cl)}`)
      const n = Number(value)
      if (n === 0) return finish(head)
      state = { _tag: "length", head, remaining: n }
      return undefined
    }
    state = { _tag: "until-close", head }
    return undefined
  }

  const step = (): Answer | undefined | "wait" => {
    switch (state._tag) {
      case "failed":
        return "wait"
      case "head": {
        const at = buffer.indexOf("\r\n\r\n")
        if (at === -1) {
          if (buffer.length > MAX_HEAD) fail("a header block over 64 KiB")
          return "wait"
        }
        const text = buffer.subarray(0, at).toString("latin1")
        buffer = buffer.subarray(at + 4)
        const head = parseHead(text)
        return head === undefined ? "wait" : afterHead(head)
      }
      case "length": {
        if (buffer.length === 0) return "wait"
        const part = takeBody(Math.min(state.remaining, buffer.length))
        const remaining = state.remaining - part.length
        if (remaining === 0) return finish(state.head)
        state = { ...state, remaining }
        return "wait"
      }
      case "chunk-size": {
        const text = line()
        if (text === undefined) return "wait"
        const size = /^([0-9A-Fa-f]{1,12})[\t ]*(;.*)?$/.exec(text)
        if (size === null) return void fail(`not a chunk size: ${JSON.stringify(text.slice(0, 40))}`)
        const n = parseInt(size[1]!, 16)
        state = n === 0 ? { _tag: "trailers", head: state.head } : { _tag: "chunk-data", head: state.head, remaining: n }
        return undefined
      }
      case "chunk-data": {
        if (buffer.length === 0) return "wait"
        const part = takeBody(Math.min(state.remaining, buffer.length))
        const remaining = state.remaining - part.length
        state = remaining === 0 ? { _tag: "chunk-end", head: state.head } : { ...state, remaining }
        return remaining === 0 ? undefined : "wait"
      }
      case "chunk-end": {
        if (buffer.length < 2) return "wait"
        if (buffer[0] !== 0x0d || buffer[1] !== 0x0a) return void fail("chunk data not followed by CRLF")
        buffer = buffer.subarray(2)
        state = { _tag: "chunk-size", head: state.head }
        return undefined
      }
      case "trailers": {
        const text = line()
        if (text === undefined) return "wait"
        if (text === "") return finish(state.head)
        if (FIELD.exec(text) === null) return void fail(`not a trailer field: ${JSON.stringify(text.slice(0, 80))}`)
        return undefined
      }
      case "until-close": {
        if (buffer.length > 0) takeBody(buffer.length)
        return "wait"
      }
    }
  }

  const drain = (): Array<Answer> => {
    const out: Array<Answer> = []
    for (;;) {
      const result = step()
      if (result === "wait") return out
      if (result !== undefined) out.push(result)
    }
  }

  return {
    push: (bytes) => {
      if (state._tag === "failed") return []
      buffer = buffer.length === 0 ? bytes : Buffer.concat([buffer, bytes])
      return drain()
    },
    end: () => {
      if (state._tag === "until-close") return [finish(state.head, true)]
      if (state._tag === "failed") return []
      if (state._tag !== "head" || buffer.length > 0) {
        fail(state._tag === "head" ? `the connection closed in the middle of an answer's head (${buffer.length} bytes)` : "the connection closed in the middle of an answer's body")
      }
      return []
    },
    error: () => failure,
    interim: () => interimCount
  }
}
