/** The cap on connections held at once (src/internal/hosts/connections/connectionCap.ts), over real sockets. */
import { describe, expect, it } from "vitest"
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Connections from "../../src/Connections.js"
import type { ConnectionLimits } from "../../src/internal/hosts/connections/limits.js"
import { answers, echoPath, get, open, send, withServer } from "./PlainServer.js"

const limits: ConnectionLimits = { maxConnections: 1, maxInFlight: 16, maxBufferedBytes: 65_536, lingerMillis: 1_000 }

/** The first answer read on `socket`. */
const firstAnswer = (socket: Net.Socket): Promise<string> =>
  new Promise((resolve) => {
    let received = ""
    socket.on("data", (chunk) => {
      received += chunk.toString()
      if (answers(received).length > 0) resolve(received)
    })
  })

describe("the connection cap", () => {
  it("past maxConnections a new connection gets 503 unavailable and is closed; once one closes, the next is served", async () => {
    const server = Http.createServer()
    Connections.install(server, echoPath, limits, ["GET"])
    const accepted: Array<Net.Socket> = []
    server.on("connection", (socket: Net.Socket) => accepted.push(socket))
    await withServer(server, async (url) => {
      const held = await open(url)
      const served = firstAnswer(held)
      held.write(get("/held"))
      expect(answers(await served)[0]!.text).toBe("/held")
      const refused = await send(url, get("/refused"))
      const [reply] = answers(refused.raw)
      expect(reply).toMatchObject({ status: 503, body: { code: "unavailable" } })
      expect(reply!.headers["retry-after"]).toBe("1")
      const heldOnServer = new Promise((resolve) => accepted[0]!.once("close", resolve))
      held.destroy()
      await heldOnServer
      const next = await send(url, get("/next", "Connection: close\r\n"))
      expect(answers(next.raw).map((a) => a.text)).toEqual(["/next"])
    })
  })

  it("destroyAll closes every connection held, also one with a request in flight", async () => {
    const server = Http.createServer()
    let installed: Connections.Installed | undefined
    installed = Connections.install(server, () => installed!.destroyAll(), { ...limits, maxConnections: 10 }, ["GET"])
    const ending = await withServer(server, (url) => send(url, get("/never-answered")))
    expect(ending.raw).toBe("")
  })
})
