/**
 * Graceful shutdown. Requests are held in flight deterministically with `Expect: 100-continue`:
 * the server's `100 Continue` proves it has the request, and the body is sent only once the
 * server is shutting down (it refuses new connections). No test waits for a fixed time.
 *
 * - The real process (`packages/server/dist/bin.js serve`, run `pnpm build` first): SIGTERM lets every in-flight
 *   request finish with its answer, then the process exits 0.
 * - In process, the same shutdown (closing the server's scope, which is what SIGTERM does) drains
 *   the message queue: messages still queued when it starts are processed before it ends.
 */
import { it } from "@effect/vitest"
import { Accounts, MessageProcessor, Petstore } from "@petstore/core"
import { Context, Deferred, Effect, Exit, Fiber, Layer, Option, Redacted, Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect } from "vitest"
import { App } from "../src/App.js"
import * as Server from "../src/Server.js"

const BIN = fileURLToPath(new URL("../../server/dist/bin.js", import.meta.url))

interface Answer {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
}

interface HeldRequest {
  /** Sends the body and waits for the answer. */
  readonly finish: () => Promise<Answer>
}

/** A POST whose headers the server has taken (it sent `100 Continue`) and whose body is held back. */
const holdPost = (port: number, path: string, key: string, body: unknown): Promise<HeldRequest> =>
  new Promise((resolve, reject) => {
    const text = JSON.stringify(body)
    const request = Http.request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      agent: false,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "content-length": Buffer.byteLength(text),
        expect: "100-continue"
      }
    })
    const answer = new Promise<Answer>((resolveAnswer, rejectAnswer) => {
      request.on("response", (response) => {
        let data = ""
        response.setEncoding("utf8")
        response.on("data", (chunk: string) => (data += chunk))
        response.on("end", () => resolveAnswer({ status: response.statusCode ?? 0, headers: response.headers, body: data }))
      })
      request.on("error", rejectAnswer)
    })
    answer.catch(() => {})
    request.once("continue", () => resolve({ finish: () => (request.end(text), answer) }))
    request.once("error", reject)
    request.flushHeaders()
  })

const post = async (url: string, path: string, key: string, body: unknown) => {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.json() }
}

/** Resolves once nothing accepts connections on `port` any more (the server has begun to close). */
const refusesConnections = async (port: number): Promise<void> => {
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = Net.connect({ host: "127.0.0.1", port })
      socket.once("connect", () => {
        socket.destroy()
        resolve(false)
      })
      socket.once("error", () => resolve(true))
    })
    if (refused) return
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = Net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as Net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * Starts `petstore serve` in an empty directory (so a store at its default relative path starts
 * empty and gets a demo account) and waits for the demo key and the "listening" line.
 */
const startProcess = async (port: number, cwd: string): Promise<{ child: ChildProcess; key: string; output: () => string }> => {
  const child = spawn(process.execPath, [BIN, "serve"], {
    cwd,
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  return new Promise((resolve, reject) => {
    // The key comes on standard error (not a terminal), the "listening" line on standard output.
    const read = (chunk: unknown) => {
      output += chunk
      const key = /psk_live_[A-Za-z0-9]+/.exec(output)
      if (key !== null && output.includes(`listening on http://127.0.0.1:${port}`)) {
        resolve({ child, key: key[0], output: () => output })
      }
    }
    child.stdout!.on("data", read)
    child.stderr!.on("data", read)
    child.once("exit", (code) => reject(new Error(`the server exited (${code}) before listening:\n${output}`)))
  })
}

const exited = (child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve({ code: child.exitCode, signal: child.signalCode })
    : new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))

describe("graceful shutdown of the real process", () => {
  it.live("on SIGTERM it stops accepting, answers every in-flight request, and exits 0", () =>
    Effect.promise(async () => {
      const port = await freePort()
      const cwd = mkdtempSync(join(tmpdir(), "petstore-shutdown-"))
      const { child, key, output } = await startProcess(port, cwd)
      try {
        const names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal"]
        const held = await Promise.all(names.map((name) => holdPost(port, "/v1/pets", key, { name, categoryId: 1 })))

        child.kill("SIGTERM")
        await refusesConnections(port)
        const answers = await Promise.all(held.map((request) => request.finish()))

        answers.forEach((answer, i) => {
          expect(answer.status, answer.body).toBe(201)
          expect(JSON.parse(answer.body)).toMatchObject({ name: names[i], categoryId: 1, status: "available" })
          expect(answer.headers.connection).toBe("close")
        })
        expect(await exited(child), output()).toEqual({ code: 0, signal: null })
        expect(output()).not.toMatch(/ERROR|Error:|^\s+at /m)
      } finally {
        child.kill("SIGKILL")
        rmSync(cwd, { recursive: true, force: true })
      }
    }), 60_000)
})

describe("graceful shutdown in process", () => {
  it.live("the server answers its in-flight request, then the message queue drains what is still queued", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const processed: Array<string> = []
      // Processing waits for the gate, so every message is still queued or in progress at shutdown;
      // it then takes a moment (an async step), as real processing does.
      const processor = MessageProcessor.MessageProcessor.of({
        process: (message) =>
          Deferred.await(gate).pipe(
            Effect.andThen(Effect.sleep("1 millis")),
            Effect.andThen(Effect.sync(() => void processed.push(message.id)))
          )
      })
      // Two scopes, released in the order one scope releases them: the server, then the services.
      const servicesScope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(
        Petstore.layerMemory({ messageQueue: { concurrency: 2 } }).pipe(
          Layer.provide(Layer.succeed(MessageProcessor.MessageProcessor, processor))
        ),
        servicesScope
      )
      const serverScope = yield* Scope.make()
      const server = yield* Layer.buildWithScope(
        Server.layer({ port: 0, host: "127.0.0.1" }).pipe(
          Layer.provide(App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] })),
          Layer.provide(Layer.succeedContext(services))
        ),
        serverScope
      )
      const { port, url } = Context.get(server, Server.ServerAddress)
      const { key } = yield* Context.get(services, Accounts.Accounts).create({ plan: "free" })
      const apiKey = Redacted.value(key.key)

      const submitted = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 6 }, (_, i) => post(url, "/v1/messages", apiKey, { message: `m${i}` })))
      )
      const ids = submitted.map((reply) => {
        expect(reply.status).toBe(202)
        return (reply.body as { id: string }).id
      })
      const held = yield* Effect.promise(() => holdPost(port, "/v1/pets", apiKey, { name: "Late", categoryId: 9 }))

      const closingServer = yield* Effect.forkChild(Scope.close(serverScope, Exit.void))
      yield* Effect.promise(() => refusesConnections(port))
      const answer = yield* Effect.promise(() => held.finish())
      expect(answer.status, answer.body).toBe(201)
      yield* Fiber.join(closingServer)

      // The services' shutdown waits for the worker, which waits for the gate: open it only then.
      const closingServices = yield* Effect.forkChild(Scope.close(servicesScope, Exit.void))
      // Let the shutdown run until it waits (for the worker, held at the gate): it cannot be done.
      yield* Effect.repeat(Effect.yieldNow, { times: 20 })
      expect(closingServices.pollUnsafe()).toBeUndefined()
      expect(processed).toEqual([])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(closingServices)
      expect([...processed].sort()).toEqual([...ids].sort())
    }), 60_000)
})
