/**
 * When a connection's next request may start, and how the server stops reading from the connection
 * meanwhile: the way node itself does (its `_paused` flag, and a weight on the pending-data count
 * of the connection's answers), so that node resumes reading only once no request waits.
 *
 * @internal
 */
import type * as Http from "node:http"
import * as NodeInternals from "../nodeInternals.js"
import { type Connection, HOLD_WEIGHT, refusedBody } from "./connection.js"
import type { ConnectionLimits } from "./limits.js"

/**
 * Whether a request of `connection` may start now: fewer than `maxInFlight` running, at most
 * `maxBufferedBytes` of answers unread, and no refused body whose closing answer is coming.
 */
export const mayStart = (connection: Connection, limits: ConnectionLimits): boolean =>
  connection.running.length < limits.maxInFlight && connection.socket.writableLength <= limits.maxBufferedBytes &&
  !connection.running.some(refusedBody)

/** Keeps a request waiting, in order, and stops reading from its connection until none waits. */
export const hold = (connection: Connection, request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  connection.held.push(request, response)
  if (connection.release !== undefined) return
  const pending = NodeInternals.pendingData(response)
  if (pending !== undefined) {
    pending(HOLD_WEIGHT)
    connection.release = pending
  }
  const socket = connection.socket
  if (!NodeInternals.isPaused(socket)) {
    NodeInternals.setPaused(socket, true)
    socket.pause()
  }
}
