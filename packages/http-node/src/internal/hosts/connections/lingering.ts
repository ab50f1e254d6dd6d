/**
 * How the server closes a connection: it ends its side, then reads on for a while and drops what
 * arrives, so that a client still sending reads its last answer instead of a reset (a socket
 * closed with unread data in it sends RST, which discards what the client had not read yet).
 *
 * @internal
 */
import type * as Net from "node:net"
import * as NodeInternals from "../nodeInternals.js"
import { closes, connectionOf, dropHeld } from "./connection.js"

/**
 * Stops carrying out requests of `socket`: ends it with `last` (when given), drops what the client
 * still sends for `lingerMillis`, then closes it.
 */
export const linger = (socket: Net.Socket, lingerMillis: number, last?: string): void => {
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
  const timer = setTimeout(() => socket.destroy(), lingerMillis)
  socket.once("close", () => clearTimeout(timer))
  // Read on, so that what arrives is dropped rather than left to reset the connection (also the
  // rest of a body refused as too large, which its reader stopped taking).
  NodeInternals.setPaused(socket, false)
  socket.resume()
  const unread = NodeInternals.requestBeingRead(socket)
  if (unread !== undefined && !unread.complete) unread.resume()
}
