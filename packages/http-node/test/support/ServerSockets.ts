/**
 * The server side of a test's connections, seen through node's `net.server.socket` diagnostics
 * channel (published for every connection a server of this process accepts), so that a test waits
 * for what the server did to a connection (stopped reading it, closed it) instead of sleeping.
 */
import { Effect } from "effect"
import * as DiagnosticsChannel from "node:diagnostics_channel"
import type * as Net from "node:net"

export interface ServerSockets {
  /** The server's socket of the client socket `client` (the same pair of ports), once accepted. */
  readonly of: (client: Net.Socket) => Net.Socket | undefined
}

/** Watches the connections accepted from now on, for the life of the scope. */
export const watch = Effect.acquireRelease(
  Effect.sync(() => {
    const accepted: Array<Net.Socket> = []
    const onSocket = (message: unknown) => void accepted.push((message as { socket: Net.Socket }).socket)
    DiagnosticsChannel.subscribe("net.server.socket", onSocket)
    const sockets: ServerSockets = {
      of: (client) => accepted.find((s) => s.remotePort === client.localPort && s.localPort === client.remotePort)
    }
    return { sockets, onSocket }
  }),
  ({ onSocket }) => Effect.sync(() => void DiagnosticsChannel.unsubscribe("net.server.socket", onSocket))
).pipe(Effect.map(({ sockets }) => sockets))

/**
 * Checks `condition` every 10 ms until it holds: waiting for an event the test can only observe.
 * Fails after `limitMs` (a hang, not a speed requirement).
 */
export const until = (what: string, condition: () => boolean, limitMs = 30_000) =>
  Effect.promise(async () => {
    const started = performance.now()
    while (!condition()) {
      if (performance.now() - started > limitMs) throw new Error(`gave up waiting for ${what} after ${limitMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  })

/** Resolves when `socket` has closed. */
export const closed = (socket: Net.Socket) =>
  Effect.promise(() => socket.closed ? Promise.resolve() : new Promise<void>((resolve) => socket.once("close", () => resolve())))
