/**
 * What the server's connections may hold, and what each is owed:
 *
 * - at most `maxConnections` at once; past that a new connection gets a 503 Error body and is closed;
 * - the requests of one connection run at most `maxInFlight` at a time, and no new one starts while
 *   more than `maxBufferedBytes` of its answers wait for the client to read them. Past either bound
 *   the server stops reading from the connection (backpressure): requests wait, none is refused;
 * - its answers go out in the order of its requests, and an error that ends the connection (a
 *   malformed request, a timeout) is answered after every request before it was;
 * - a connection the server closes lingers: what the client still sends is read and dropped for a
 *   while, so that the client reads its last answer instead of a reset. No request read after that
 *   point, or after a request that asked to close, is carried out.
 *
 * node:http parses the requests; this module decides when each one starts. It stops reading from a
 * connection the way node itself does (the connection's `_paused` flag, the pending-data count of its
 * answers), so that node resumes it only once no request waits.
 *
 * @since 1.0.0
 */
import * as Fs from "node:fs"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as ErrorResponse from "./ErrorResponse.js"
import * as NodeRequest from "./internal/nodeRequest.js"
import * as RequestId from "./internal/requestId.js"

export interface ConnectionLimits {
  /** Connections held at once; a new one past it gets 503 `unavailable` and is closed. */
  readonly maxConnections: number
  /** Requests of one connection being answered at once. */
  readonly maxInFlight: number
  /** Bytes of one connection's answers waiting for the client to read them, past which no new request of it starts. */
  readonly maxBufferedBytes: number
  /** How long a connection the server closes is still read from (what arrives is dropped). */
  readonly lingerMillis: number
}

/** The soft limit on open files of this process, where the system tells it (Linux). */
const openFileLimit = (): number | undefined => {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(Fs.readFileSync("/proc/self/limits", "utf8"))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** Files kept for everything but connections: stores, logs, the listening socket. */
const RESERVED_FILES = 128

/**
 * The defaults: 10,000 connections (fewer when the process may open fewer files), 16 requests of a
 * connection at once, 64 KiB of unread answers, 2 s of lingering.
 */
export const defaults = (): ConnectionLimits => ({
  maxConnections: Math.max(1, Math.min(10_000, (openFileLimit() ?? Infinity) - RESERVED_FILES)),
  maxInFlight: 16,
  maxBufferedBytes: 64 * 1024,
  lingerMillis: 2_000
})

/** An Error body as a whole HTTP/1.1 answer that closes the connection, for a socket no response object stands for. */
export const rawAnswer = ({ body, status }: ErrorResponse.ErrorResult, extra = ""): string =>
  `HTTP/1.1 ${status} ${Http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n${extra}` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`

/** The answer to CONNECT, with the request's id (taken when well-formed, else generated). */
const connectNotAllowed = (requestId: string) =>
  rawAnswer(ErrorResponse.STATIC.connectNotAllowed, `Allow: GET, HEAD, POST, DELETE\r\n${RequestId.HEADER}: ${requestId}\r\n`)

const TOO_MANY_CONNECTIONS = ErrorResponse.make("unavailable", "The server holds as many connections as it may; retry in a moment.")
/** The answer to a connection past the cap: no request has been read, so its id is generated. */
const tooManyConnections = () => rawAnswer(TOO_MANY_CONNECTIONS, `Retry-After: 1\r\n${RequestId.HEADER}: ${RequestId.of(undefined)}\r\n`)

/** node's per-connection internals this module works with (present on node's server sockets). */
interface ServerSocket extends Net.Socket {
  _paused?: boolean
  parser?: { incoming?: Http.IncomingMessage | null } | null
}

/** The pending-data counter node gives each answer of a connection (shared by all of them). */
type PendingData = (delta: number) => void

/** Held requests count as this much unsent data, so node does not read on while any waits. */
const HOLD_WEIGHT = 2 ** 30

interface Connection {
  readonly socket: ServerSocket
  /** Started requests whose answers are not finished, in order. */
  readonly running: Array<Http.ServerResponse>
  /** Requests waiting to start, in order (request, response, request, response ...). */
  held: Array<Http.IncomingMessage | Http.ServerResponse>
  /** Set while requests are held: takes their weight off node's pending-data count. */
  release: PendingData | undefined
  /** The error answer that ends the connection once every request before it is answered. */
  lastAnswer: string | undefined
  /** No further request of this connection is carried out. */
  closing: boolean
  /** A request that asked to close the connection was read: none after it is carried out. */
  lastRequestSeen: boolean
  waitingForDrain: boolean
}

/** Whether an answer's header block closes the connection (what node wrote: `_header`). */
const closes = (response: Http.ServerResponse): boolean =>
  /\r\nconnection: *close\r\n/i.test((response as unknown as { _header?: string | null })._header ?? "")

/** A request whose body was refused as too large: its answer closes the connection, so nothing after it starts meanwhile. */
const refusedBody = (response: Http.ServerResponse): boolean => NodeRequest.handedInIncomplete(response.req)

const kConnection = Symbol.for("@petstore/http-node/Connection")

const connectionOf = (socket: Net.Socket): Connection | undefined => (socket as any)[kConnection]

type Listener = (request: Http.IncomingMessage, response: Http.ServerResponse) => void

/** The connections of a server put under limits. */
export interface Installed {
  /** Closes every connection at once, whatever it is doing (the end of a shutdown's grace). */
  readonly destroyAll: () => void
}

/**
 * Puts `server`'s connections under `limits`: it accepts connections up to the cap, starts each
 * request with `listener` when its connection's bounds allow, and answers node's `clientError`s.
 */
export const install = (server: Http.Server, listener: Listener, limits: ConnectionLimits): Installed => {
  const sockets = new Set<Net.Socket>()
  let open = 0
  let refusing = 0
  // A client that half-closes after its requests still reads their answers; the last one closes.
  ;(server as Http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true

  /** Stops reading and writing: what the client still sends is dropped for `lingerMillis`, then the socket is closed. */
  const linger = (socket: ServerSocket, last?: string) => {
    const connection = connectionOf(socket)
    if (connection !== undefined) {
      // node closes after the last answer a client that half-closed is owed: a deferred error answer
      // follows it, unless that answer closed the connection itself (`Connection: close`).
      if (last === undefined && !connection.closing && !connection.lastRequestSeen && !connection.running.some(closes)) {
        last = connection.lastAnswer
      }
      connection.closing = true
      dropHeld(connection)
    }
    if (socket.destroyed || socket.writableEnded) return
    if (last === undefined) socket.end()
    else socket.end(last)
    const timer = setTimeout(() => socket.destroy(), limits.lingerMillis)
    socket.once("close", () => clearTimeout(timer))
    // Read on, so that what arrives is dropped rather than left to reset the connection (also the
    // rest of a body refused as too large, which its reader stopped taking).
    socket._paused = false
    socket.resume()
    const unread = socket.parser?.incoming
    if (unread != null && !unread.complete) unread.resume()
  }

  const dropHeld = (connection: Connection) => {
    if (connection.held.length > 0) connection.held = []
    if (connection.release !== undefined) {
      const release = connection.release
      connection.release = undefined
      release(-HOLD_WEIGHT)
    }
  }

  const hold = (connection: Connection, request: Http.IncomingMessage, response: Http.ServerResponse) => {
    connection.held.push(request, response)
    if (connection.release !== undefined) return
    const pending = (response as unknown as { _onPendingData?: PendingData })._onPendingData
    if (typeof pending === "function") {
      pending(HOLD_WEIGHT)
      connection.release = pending
    }
    const socket = connection.socket
    if (socket._paused !== true) {
      socket._paused = true
      socket.pause()
    }
  }

  const start = (connection: Connection, request: Http.IncomingMessage, response: Http.ServerResponse) => {
    connection.running.push(response)
    response.once("close", () => {
      const at = connection.running.indexOf(response)
      if (at >= 0) connection.running.splice(at, 1)
      next(connection)
    })
    listener(request, response)
    // An answer written at once that closes the connection (no Host, a refused Expect): nothing read after it is carried out.
    if (closes(response)) {
      connection.lastRequestSeen = true
      dropHeld(connection)
    }
  }

  const mayStart = (connection: Connection) =>
    connection.running.length < limits.maxInFlight && connection.socket.writableLength <= limits.maxBufferedBytes &&
    !connection.running.some(refusedBody)

  /** Starts held requests while the bounds allow; ends the connection with its error answer when all are answered. */
  const next = (connection: Connection) => {
    const { socket } = connection
    if (connection.closing) return
    let i = 0
    const held = connection.held
    // (An answer that closes the connection drops what is held: `connection.held` is then another array.)
    while (i < held.length && connection.held === held && mayStart(connection)) {
      start(connection, held[i] as Http.IncomingMessage, held[i + 1] as Http.ServerResponse)
      i += 2
    }
    if (i > 0 && connection.held === held) connection.held = held.slice(i)
    if (connection.held.length === 0) {
      if (connection.release !== undefined) dropHeld(connection)
      if (connection.lastAnswer !== undefined && connection.running.length === 0) linger(socket, connection.lastAnswer)
    } else if (!connection.waitingForDrain && connection.running.length < limits.maxInFlight) {
      connection.waitingForDrain = true
      socket.once("drain", () => {
        connection.waitingForDrain = false
        next(connection)
      })
    }
  }

  /** Every request, also one with an `Expect` header, passes here in the order it was read. */
  const onRequest = (request: Http.IncomingMessage, response: Http.ServerResponse) => {
    const connection = connectionOf(request.socket)
    if (connection === undefined) return listener(request, response)
    // Read after the connection was closed, or after a request that asked to close it: not carried out.
    if (connection.closing || connection.lastAnswer !== undefined || connection.lastRequestSeen) return
    // node reads nothing more after a request that asks to upgrade the protocol: its answer closes the connection.
    if (request.headers.upgrade !== undefined) response.shouldKeepAlive = false
    if (!response.shouldKeepAlive) connection.lastRequestSeen = true
    if (connection.held.length === 0 && mayStart(connection)) start(connection, request, response)
    else hold(connection, request, response)
  }
  server.on("request", onRequest)
  server.on("checkContinue", onRequest)
  server.on("checkExpectation", onRequest)

  /** An answer that ends the connection, after every request before it is answered. */
  const endWith = (socket: ServerSocket, answer: string) => {
    const connection = connectionOf(socket)
    if (connection === undefined) return linger(socket, answer)
    // Already closing, or closing after an earlier answer: nothing more is sent.
    if (connection.closing || connection.lastAnswer !== undefined || connection.lastRequestSeen) return
    connection.lastAnswer = answer
    next(connection)
  }

  // node hands a CONNECT request's socket over without a parser: it is answered in its turn, then closed.
  server.on("connect", (request: Http.IncomingMessage, socket: ServerSocket) => {
    socket.on("error", () => {})
    endWith(socket, connectNotAllowed(RequestId.ofNode(request.headers)))
  })

  server.on("clientError", (error: NodeJS.ErrnoException, socket: ServerSocket) => {
    const connection = connectionOf(socket)
    if (error.code === "ECONNRESET" || connection === undefined) return socket.destroy()
    if (!socket.writable && !connection.closing) return socket.destroy()
    // A request whose body never arrived whole is not carried out (NodeHandler waits for a whole
    // body, which can no longer come): the error answer does not wait for it. One whose body was
    // refused as too large is answered (413, closing the connection), and that answer is the last.
    const cut = socket.parser?.incoming
    if (cut != null && !cut.complete && !NodeRequest.handedInIncomplete(cut)) {
      const at = connection.running.findIndex((response) => response.req === cut)
      if (at >= 0) connection.running.splice(at, 1)
      const h = connection.held.indexOf(cut)
      if (h >= 0) connection.held.splice(h, 2)
    }
    // The request's own id when its headers were read (a timed-out body), otherwise a new one.
    const requestId = RequestId.ofNode(cut?.headers)
    endWith(socket, rawAnswer(ErrorResponse.fromClientError(error.code), `${RequestId.HEADER}: ${requestId}\r\n`))
  })

  // Every connection passes the cap first, then node's own connection listener.
  const accept = server.listeners("connection") as Array<(socket: Net.Socket) => void>
  server.removeAllListeners("connection")
  server.on("connection", (socket: ServerSocket) => {
    if (open >= limits.maxConnections) return refuse(socket)
    open++
    const connection: Connection = {
      socket,
      running: [],
      held: [],
      release: undefined,
      lastAnswer: undefined,
      closing: false,
      lastRequestSeen: false,
      waitingForDrain: false
    }
    ;(socket as any)[kConnection] = connection
    sockets.add(socket)
    socket.once("close", () => {
      sockets.delete(socket)
      open--
      connection.closing = true
      connection.held = []
    })
    // node closes a connection after an answer that ends it with `destroySoon`; it lingers instead.
    socket.destroySoon = () => linger(socket)
    for (const listener of accept) listener.call(server, socket)
  })

  const refuse = (socket: Net.Socket) => {
    socket.on("error", () => {})
    // Past a thousand refusals in their lingering second, the next ones are closed at once.
    if (refusing >= 1_000) return socket.destroy()
    refusing++
    sockets.add(socket)
    socket.end(tooManyConnections())
    socket.resume()
    const timer = setTimeout(() => socket.destroy(), Math.min(limits.lingerMillis, 1_000))
    socket.once("close", () => {
      sockets.delete(socket)
      refusing--
      clearTimeout(timer)
    })
  }

  return {
    destroyAll: () => {
      for (const socket of sockets) socket.destroy()
    }
  }
}
