/**
 * The requests of one connection, in the order they were read: each starts when the bounds allow
 * (else it is held), answers go out in that order, and an error that ends the connection is
 * answered after every request before it. Nothing read after a request that closes the connection
 * is carried out.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import { hold, mayStart } from "./backpressure.js"
import { closes, type Connection, connectionOf, dropHeld, endsBeforeMore } from "./connection.js"
import { linger } from "./lingering.js"
import type { ConnectionLimits } from "./limits.js"

export type Listener = (request: Http.IncomingMessage, response: Http.ServerResponse) => void

/** What the requests of a server's connections are given to, and under which bounds. */
export interface Pipeline {
  readonly listener: Listener
  readonly limits: ConnectionLimits
}

const start = (pipeline: Pipeline, connection: Connection, request: Http.IncomingMessage, response: Http.ServerResponse) => {
  connection.running.push(response)
  response.once("close", () => {
    const at = connection.running.indexOf(response)
    if (at >= 0) connection.running.splice(at, 1)
    next(pipeline, connection)
  })
  pipeline.listener(request, response)
  // An answer written at once that closes the connection (no Host, a refused Expect): nothing read after it is carried out.
  if (closes(response)) {
    connection.lastRequestSeen = true
    dropHeld(connection)
  }
}

/** Starts held requests while the bounds allow; ends the connection with its error answer when all are answered. */
export const next = (pipeline: Pipeline, connection: Connection): void => {
  const { socket } = connection
  if (connection.closing) return
  let i = 0
  const held = connection.held
  // (An answer that closes the connection drops what is held: `connection.held` is then another array.)
  while (i < held.length && connection.held === held && mayStart(connection, pipeline.limits)) {
    start(pipeline, connection, held[i] as Http.IncomingMessage, held[i + 1] as Http.ServerResponse)
    i += 2
  }
  if (i > 0 && connection.held === held) connection.held = held.slice(i)
  if (connection.held.length === 0) {
    if (connection.release !== undefined) dropHeld(connection)
    if (connection.lastAnswer !== undefined && connection.running.length === 0) linger(socket, pipeline.limits.lingerMillis, connection.lastAnswer)
  } else if (!connection.waitingForDrain && connection.running.length < pipeline.limits.maxInFlight) {
    connection.waitingForDrain = true
    socket.once("drain", () => {
      connection.waitingForDrain = false
      next(pipeline, connection)
    })
  }
}

/** The server's listener for every request, also one with an `Expect` header, in the order it was read. */
export const onRequest = (pipeline: Pipeline) => (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  const connection = connectionOf(request.socket)
  if (connection === undefined) return pipeline.listener(request, response)
  // Read after the connection was closed, or after a request that asked to close it: not carried out.
  if (endsBeforeMore(connection)) return
  // node reads nothing more after a request that asks to upgrade the protocol: its answer closes the connection.
  if (request.headers.upgrade !== undefined) response.shouldKeepAlive = false
  if (!response.shouldKeepAlive) connection.lastRequestSeen = true
  if (connection.held.length === 0 && mayStart(connection, pipeline.limits)) start(pipeline, connection, request, response)
  else hold(connection, request, response)
}

/** An answer that ends the connection of `socket`, after every request before it is answered. */
export const endWith = (pipeline: Pipeline, socket: Net.Socket, answer: string): void => {
  const connection = connectionOf(socket)
  if (connection === undefined) return linger(socket, pipeline.limits.lingerMillis, answer)
  // Already closing, or closing after an earlier answer: nothing more is sent.
  if (endsBeforeMore(connection)) return
  connection.lastAnswer = answer
  next(pipeline, connection)
}
