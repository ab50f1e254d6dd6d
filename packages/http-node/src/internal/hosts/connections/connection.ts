/**
 * What the server keeps for each connection it holds: its requests running and waiting, the weight
 * it put on node's pending-data count to stop node reading, and how it ends. The record hangs on
 * node's socket, so node's events (a request, a client error) find it from the socket they give.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import * as NodeInternals from "../nodeInternals.js"

export interface Connection {
  readonly socket: Net.Socket
  /** Started requests whose answers are not finished, in order. */
  readonly running: Array<Http.ServerResponse>
  /** Requests waiting to start, in order (request, response, request, response ...). */
  held: Array<Http.IncomingMessage | Http.ServerResponse>
  /** Set while requests are held: takes their weight off node's pending-data count. */
  release: NodeInternals.PendingData | undefined
  /** The error answer that ends the connection once every request before it is answered. */
  lastAnswer: string | undefined
  /** No further request of this connection is carried out. */
  closing: boolean
  /** A request that asked to close the connection was read: none after it is carried out. */
  lastRequestSeen: boolean
  waitingForDrain: boolean
}

const kConnection = Symbol.for("@petstore/http-node/Connection")

/** The record of the connection `socket` stands for, if the server holds it. */
export const connectionOf = (socket: Net.Socket): Connection | undefined => (socket as any)[kConnection]

/** A new record for `socket`, found from it from now on. */
export const attach = (socket: Net.Socket): Connection => {
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
  return connection
}

/** Whether no request read now is carried out (closing, or after an error answer or a request that closes). */
export const endsBeforeMore = (connection: Connection): boolean =>
  connection.closing || connection.lastAnswer !== undefined || connection.lastRequestSeen

/** Whether an answer's header block closes the connection (as node wrote it). */
export const closes = (response: Http.ServerResponse): boolean =>
  /\r\nconnection: *close\r\n/i.test(NodeInternals.headerBlock(response))

/** A request whose body was refused as too large: its answer closes the connection, so nothing after it starts meanwhile. */
export const refusedBody = (response: Http.ServerResponse): boolean => NodeInternals.handedInIncomplete(response.req)

/** Held requests count as this much unsent data, so node does not read on while any waits. */
export const HOLD_WEIGHT = 2 ** 30

/** Drops the requests held, and takes their weight off node's pending-data count. */
export const dropHeld = (connection: Connection): void => {
  if (connection.held.length > 0) connection.held = []
  if (connection.release !== undefined) {
    const release = connection.release
    connection.release = undefined
    release(-HOLD_WEIGHT)
  }
}
