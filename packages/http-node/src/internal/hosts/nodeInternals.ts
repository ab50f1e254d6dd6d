/**
 * Every field of node:http this package reads or writes that node does not document, in one place,
 * each behind a named accessor with why it is used. The connection management (internal/hosts/
 * connections) needs them to stop reading a connection the way node itself does and to close it
 * the way node would; `test/internals/NodeInternals.test.ts` has one test per field that fails when
 * a node release changes what the field means. Checked against node 20 (`lib/_http_server.js`).
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"

/** A server socket with the private fields node's `connectionListener` sets on it. */
interface NodeServerSocket extends Net.Socket {
  _paused?: boolean
  parser?: { incoming?: Http.IncomingMessage | null } | null
}

/** node's pending-data counter of a connection, shared by all the answers of the connection. */
export type PendingData = (delta: number) => void

/**
 * `server.httpAllowHalfOpen`: when set, a client that half-closes (sends FIN after its requests)
 * still reads their answers, node marking the last one to close the connection; unset, node drops
 * the requests still running. node reads the flag on every `end` of a connection.
 */
export const allowHalfOpen = (server: Http.Server): void => {
  ;(server as Http.Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true
}

/**
 * `socket._paused`: node's own "reading stopped for backpressure" flag. node sets it (and pauses
 * the socket) when answers pile up, and clears it (resuming the socket and its parser) when its
 * pending-data count drops back; a socket paused without it is resumed by node's next drain.
 */
export const isPaused = (socket: Net.Socket): boolean => (socket as NodeServerSocket)._paused === true

/** Sets `socket._paused` (see `isPaused`); the caller pauses or resumes the stream itself. */
export const setPaused = (socket: Net.Socket, paused: boolean): void => {
  ;(socket as NodeServerSocket)._paused = paused
}

/**
 * `response._onPendingData`: adds to the count of bytes a connection's answers have not yet handed
 * to the socket. node resumes a paused connection only when that count falls below the socket's
 * high-water mark, so a weight added here keeps node from reading on until it is taken off.
 */
export const pendingData = (response: Http.ServerResponse): PendingData | undefined => {
  const pending = (response as unknown as { _onPendingData?: unknown })._onPendingData
  return typeof pending === "function" ? pending as PendingData : undefined
}

/**
 * `response._header`: the header block node wrote for the answer (null before). Whether the answer
 * closes the connection is read there, as node decided it (`Connection: close` written by the
 * application or added by node itself).
 */
export const headerBlock = (response: Http.ServerResponse): string =>
  (response as unknown as { _header?: string | null })._header ?? ""

/**
 * `socket.parser.incoming`: the request node's parser is reading on the connection (its headers
 * read, its body perhaps not). It is the request a timeout or parse error cut off; absent when
 * the socket has no parser (a CONNECT socket, a closed connection).
 */
export const requestBeingRead = (socket: Net.Socket): Http.IncomingMessage | undefined =>
  (socket as NodeServerSocket).parser?.incoming ?? undefined

/**
 * `socket.destroySoon`: what node calls to close a connection once the answer that ends it is
 * written (`Connection: close`, or the last answer of a half-closed client). Replaced so that the
 * connection lingers instead (see internal/hosts/connections/lingering).
 */
export const onDestroySoon = (socket: Net.Socket, close: () => void): void => {
  socket.destroySoon = close
}

/**
 * The server's `connection` listeners, taken off it: node:http's own `connectionListener` (which
 * attaches the parser) is one of them. Whoever takes them calls them for each connection it
 * accepts, so that a connection past the cap never reaches node's parser.
 */
export const takeConnectionListeners = (server: Http.Server): ReadonlyArray<(socket: Net.Socket) => void> => {
  const listeners = server.listeners("connection") as Array<(socket: Net.Socket) => void>
  server.removeAllListeners("connection")
  return listeners
}

/**
 * A mark of this package on node's request (not node's own field): set when the request was handed
 * to the application before its body arrived whole (a body over the limit, answered 413). The
 * connection management then does not take the request for one cut off by the client.
 */
const kHandedInIncomplete = Symbol.for("@petstore/http-node/handedInIncomplete")

/** Marks `request` as handed in before its body arrived whole (see `handedInIncomplete`). */
export const markHandedInIncomplete = (request: Http.IncomingMessage): void => {
  ;(request as any)[kHandedInIncomplete] = true
}

/** Whether `request` was handed to the application before its body arrived whole (a body over the limit). */
export const handedInIncomplete = (request: Http.IncomingMessage): boolean => (request as any)[kHandedInIncomplete] === true
