/** How the server closes a connection (src/internal/hosts/connections/lingering.ts), over a real socket. */
import { describe, expect, it } from "vitest"
import type * as Http from "node:http"
import * as Net from "node:net"
import type { AddressInfo } from "node:net"
import * as Connection from "../../src/internal/hosts/connections/connection.js"
import { linger } from "../../src/internal/hosts/connections/lingering.js"

/** A TCP server that lingers each connection with `last` as soon as it is accepted, with a record when `record` says so. */
const lingeringServer = (last: string, record: (connection: Connection.Connection) => void = () => {}) => {
  const closed: Array<Promise<void>> = []
  const server = Net.createServer((socket) => {
    record(Connection.attach(socket))
    closed.push(new Promise((resolve) => socket.once("close", () => resolve())))
    linger(socket, 200, last)
  })
  return { server, closed }
}

describe("lingering", () => {
  it("ends with the last answer, still reads (what arrives is dropped, no reset), then closes", async () => {
    const { closed, server } = lingeringServer("bye")
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      const result = await new Promise<{ received: string; reset: boolean }>((resolve) => {
        const client = Net.connect(port, "127.0.0.1")
        let received = ""
        let reset = false
        client.on("data", (chunk) => (received += chunk.toString()))
        // The client keeps sending after the server's answer: the server reads it and drops it.
        client.on("end", () => client.end("more bytes the server never asked for"))
        client.on("error", (error: NodeJS.ErrnoException) => (reset = error.code === "ECONNRESET"))
        client.on("close", () => resolve({ received, reset }))
      })
      expect(result).toEqual({ received: "bye", reset: false })
      await Promise.all(closed)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })

  it("marks the connection closing and drops what it held, taking the hold's weight off", async () => {
    const deltas: Array<number> = []
    let kept: Connection.Connection | undefined
    const { closed, server } = lingeringServer("", (connection) => {
      kept = connection
      connection.held = [{} as Http.IncomingMessage, {} as Http.ServerResponse]
      connection.release = (delta) => deltas.push(delta)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const { port } = server.address() as AddressInfo
      await new Promise<void>((resolve) => Net.connect(port, "127.0.0.1").on("end", function(this: Net.Socket) {
        this.end()
        resolve()
      }))
      await Promise.all(closed)
      expect(kept).toMatchObject({ closing: true, held: [], release: undefined })
      expect(deltas).toEqual([-Connection.HOLD_WEIGHT])
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
