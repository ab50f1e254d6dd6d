/**
 * The cap on connections held at once. Every connection passes it before node's own connection
 * listener sees it; one past it gets the 503 answer and is closed, without a parser. The sockets
 * held are kept, so that a shutdown past its grace can close them all.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import * as NodeInternals from "../nodeInternals.js"
import { attach } from "./connection.js"
import type { ConnectionLimits } from "./limits.js"
import { linger } from "./lingering.js"
import * as RawAnswers from "./rawAnswers.js"

/** Refusals lingering at once, past which the next ones are closed at once. */
const MAX_REFUSING = 1_000

/** The connections a server holds. */
export interface Held {
  /** Closes every connection at once, whatever it is doing. */
  readonly destroyAll: () => void
}

/** Puts the connections of `server` under `limits.maxConnections`; each one held gets its record and lingers when it closes. */
export const capConnections = (server: Http.Server, limits: ConnectionLimits): Held => {
  const sockets = new Set<Net.Socket>()
  let open = 0
  let refusing = 0

  const refuse = (socket: Net.Socket) => {
    socket.on("error", () => {})
    // Past a thousand refusals in their lingering second, the next ones are closed at once.
    if (refusing >= MAX_REFUSING) return socket.destroy()
    refusing++
    sockets.add(socket)
    socket.end(RawAnswers.tooManyConnections())
    socket.resume()
    const timer = setTimeout(() => socket.destroy(), Math.min(limits.lingerMillis, 1_000))
    socket.once("close", () => {
      sockets.delete(socket)
      refusing--
      clearTimeout(timer)
    })
  }

  const accept = NodeInternals.takeConnectionListeners(server)
  server.on("connection", (socket: Net.Socket) => {
    if (open >= limits.maxConnections) return refuse(socket)
    open++
    const connection = attach(socket)
    sockets.add(socket)
    socket.once("close", () => {
      sockets.delete(socket)
      open--
      connection.closing = true
      connection.held = []
    })
    // node closes a connection after an answer that ends it with `destroySoon`; it lingers instead.
    NodeInternals.onDestroySoon(socket, () => linger(socket, limits.lingerMillis))
    for (const listener of accept) listener.call(server, socket)
  })

  return {
    destroyAll: () => {
      for (const socket of sockets) socket.destroy()
    }
  }
}
