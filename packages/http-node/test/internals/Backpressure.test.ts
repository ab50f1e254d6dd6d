/** When a connection's next request may start, and how reading stops meanwhile (src/internal/hosts/connections/backpressure.ts). */
import { describe, expect, it } from "vitest"
import type * as Http from "node:http"
import * as Net from "node:net"
import { hold, mayStart } from "../../src/internal/hosts/connections/backpressure.js"
import * as Connection from "../../src/internal/hosts/connections/connection.js"
import type { ConnectionLimits } from "../../src/internal/hosts/connections/limits.js"
import * as NodeInternals from "../../src/internal/hosts/nodeInternals.js"

const limits: ConnectionLimits = { maxConnections: 10, maxInFlight: 2, maxBufferedBytes: 100, lingerMillis: 10 }

/** A connection whose socket has `unread` bytes of answers waiting. */
const connectionWith = (unread: number) => {
  const socket = new Net.Socket()
  Object.defineProperty(socket, "writableLength", { value: unread })
  return Connection.attach(socket)
}

const response = (req = {} as Http.IncomingMessage, pending?: (delta: number) => void) =>
  ({ req, _onPendingData: pending }) as unknown as Http.ServerResponse

describe("backpressure", () => {
  it("a request may start below maxInFlight running, at most maxBufferedBytes unread, and no refused body running", () => {
    const connection = connectionWith(100)
    expect(mayStart(connection, limits)).toBe(true)
    connection.running.push(response())
    expect(mayStart(connection, limits)).toBe(true)
    connection.running.push(response())
    expect(mayStart(connection, limits)).toBe(false)
    expect(mayStart(connectionWith(101), limits)).toBe(false)
    const refused = connectionWith(0)
    const request = {} as Http.IncomingMessage
    NodeInternals.markHandedInIncomplete(request)
    refused.running.push(response(request))
    expect(mayStart(refused, limits)).toBe(false)
  })

  it("holding pauses the socket as node does and weighs on node's count once, however many wait", () => {
    const connection = connectionWith(0)
    const deltas: Array<number> = []
    const pending = (delta: number) => deltas.push(delta)
    const [request1, request2] = [{} as Http.IncomingMessage, {} as Http.IncomingMessage]
    const [response1, response2] = [response(request1, pending), response(request2, pending)]
    hold(connection, request1, response1)
    hold(connection, request2, response2)
    expect(connection.held).toEqual([request1, response1, request2, response2])
    expect(deltas).toEqual([Connection.HOLD_WEIGHT])
    expect(connection.release).toBe(pending)
    expect(NodeInternals.isPaused(connection.socket)).toBe(true)
    expect(connection.socket.isPaused()).toBe(true)
    Connection.dropHeld(connection)
    expect(deltas).toEqual([Connection.HOLD_WEIGHT, -Connection.HOLD_WEIGHT])
  })
})
