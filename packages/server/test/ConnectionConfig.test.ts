/**
 * The bounds on connections as settings: read and validated from the environment, and applied by
 * the real server process.
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as Net from "node:net"
import { ServerConfig } from "../src/Config.js"
import { start, stop } from "./support/ServerProcess.js"

const read = (env: Record<string, string>) =>
  Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))

describe("connection settings", () => {
  it.effect("unset, they keep the server's defaults; set, each is taken", () =>
    Effect.gen(function*() {
      expect((yield* read({})).connections).toEqual({})
      const set = yield* read({ PETSTORE_MAX_CONNECTIONS: "500", PETSTORE_PIPELINE_DEPTH: "4", PETSTORE_CONNECTION_BUFFER_BYTES: "131072" })
      expect(set.connections).toEqual({ maxConnections: 500, maxInFlight: 4, maxBufferedBytes: 131072 })
    }))

  for (
    const [name, value] of [
      ["PETSTORE_MAX_CONNECTIONS", "0"],
      ["PETSTORE_MAX_CONNECTIONS", "many"],
      ["PETSTORE_PIPELINE_DEPTH", "0"],
      ["PETSTORE_PIPELINE_DEPTH", "1.5"],
      ["PETSTORE_CONNECTION_BUFFER_BYTES", "1024"]
    ] as const
  ) {
    it.effect(`${name}=${value} is refused with a message that names it`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(read({ [name]: value }))
        expect(String(error)).toContain(name)
      }))
  }

  it("the server holds at most PETSTORE_MAX_CONNECTIONS connections: past it, 503 with an Error body", async () => {
    const server = await start({ PETSTORE_STORE: "memory", PETSTORE_MAX_CONNECTIONS: "1" })
    const { hostname, port } = new URL(server.url)
    const held = Net.connect(Number(port), hostname)
    try {
      await new Promise((resolve) => held.once("connect", resolve))
      const refused = await new Promise<string>((resolve) => {
        const socket = Net.connect(Number(port), hostname)
        let raw = ""
        socket.on("data", (chunk) => (raw += String(chunk)))
        socket.on("error", () => {})
        socket.on("close", () => resolve(raw))
        socket.write("GET /v1/pets HTTP/1.1\r\nHost: x\r\n\r\n")
      })
      expect(refused).toMatch(/^HTTP\/1\.1 503 /)
      expect(refused).toContain("Content-Type: application/json")
      expect(JSON.parse(refused.slice(refused.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "unavailable", status: 503 })
    } finally {
      held.destroy()
      await stop(server)
    }
  }, 60_000)
})
