/**
 * The standalone server's logs, read from the real process's output: JSON lines (the default when
 * the output is not a terminal) or text, the access line per request, the level, and that no key,
 * token or body ever reaches them.
 */
import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import * as AccessLine from "@petstore/http-node/AccessLine"
import { Cause, Effect, type Fiber, LogLevel, References } from "effect"
import * as Os from "node:os"
import { prettyFactory } from "pino-pretty"
import * as Logging from "../src/Logging.js"
import { ADMIN_TOKEN, createAccount, request } from "./support/Http.js"
import { exited, pollUntil, type Server, type Settings, sleep, start, startAnswering, stop } from "./support/ServerProcess.js"

const base: Settings = { PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }

const linesOf = (server: Server) => server.output().split("\n").filter((line) => line.length > 0)

/** The parsed JSON lines of the output once `until` holds for them (bounded poll). */
const jsonLines = (server: Server, until: (lines: Array<Record<string, unknown>>) => boolean) =>
  pollUntil("the log lines", () => {
    const lines = linesOf(server).map((line) => JSON.parse(line) as Record<string, unknown>)
    return until(lines) ? lines : undefined
  }, 100, 50)

const accessLines = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.msg === "request")

const withServer = async (settings: Settings, test: (server: Server) => Promise<void>) => {
  const server = await start({ ...base, ...settings })
  try {
    await test(server)
  } finally {
    await stop(server)
  }
}

describe("logs of the standalone server", () => {
  it("JSON by default off a terminal, in pino's shape: every line parses, with level (pino's number), time, pid, hostname and msg; one access line per request", () =>
    withServer({}, async (server) => {
      const account = await createAccount(server.url)
      const created = await request(`${server.url}/v1/pets`, {
        method: "POST",
        key: account.key,
        headers: { "x-request-id": "json-1" },
        body: JSON.stringify({ name: "Secret-Pet-Name-42", categoryId: 3 })
      })
      expect(created.status).toBe(201)
      expect(created.headers.get("x-request-id")).toBe("json-1")
      expect((await request(`${server.url}/v1/nowhere`, { key: account.key, headers: { "x-request-id": "json-2" } })).status).toBe(404)
      expect((await request(`${server.url}/v1/pets/7?x=1`, { headers: { authorization: "Bearer psk_live_notakey0000000000000000000", "x-request-id": "json-3" } })).status)
        .toBe(401)

      const lines = await jsonLines(server, (lines) => accessLines(lines).length >= 4)
      for (const line of lines) {
        expect(line).toMatchObject({
          level: expect.any(Number),
          time: expect.any(Number),
          pid: server.process.pid,
          hostname: Os.hostname(),
          msg: expect.any(String)
        })
        expect(Math.abs((line.time as number) - Date.now())).toBeLessThan(10 * 60_000)
      }
      expect(lines[0]).toMatchObject({ level: 30, msg: expect.stringMatching(/^Pet Store Service listening on /) })
      const access = accessLines(lines)
      expect(access.find((line) => line.requestId === "json-1")).toEqual({
        level: 30,
        time: expect.any(Number),
        pid: server.process.pid,
        hostname: Os.hostname(),
        msg: "request",
        requestId: "json-1",
        method: "POST",
        path: "/v1/pets",
        route: "POST /v1/pets",
        status: 201,
        clientAddress: "127.0.0.1",
        durationMs: expect.any(Number),
        accountId: account.accountId
      })
      expect(access.find((line) => line.requestId === "json-2")).toEqual(
        expect.objectContaining({ method: "GET", path: "/v1/nowhere", status: 404, accountId: account.accountId })
      )
      expect(access.find((line) => line.requestId === "json-2")).not.toHaveProperty("route")
      // A request refused before routing still names the route it asked for (not its query).
      const refused = access.find((line) => line.requestId === "json-3")
      expect(refused).toMatchObject({ status: 401, path: "/v1/pets/7", route: "GET /v1/pets/{petId}", clientAddress: "127.0.0.1" })
      expect(refused).not.toHaveProperty("accountId")
      expect(access.find((line) => line.route === "POST /admin/v1/accounts")).toMatchObject({ status: 201 })

      // Keys, tokens, Authorization headers and bodies never reach the logs.
      const output = server.output()
      for (const secret of [account.key, ADMIN_TOKEN, "psk_live_notakey", "Bearer", "Secret-Pet-Name-42"]) {
        expect(output).not.toContain(secret)
      }
    }))

  it("the start line names the version, the store, where its data lives and the limiter (never a credential); SIGTERM logs draining, then stopped", async () => {
    const server = await start({ ...base, PETSTORE_DRAIN_DELAY_MS: "50" })
    await stop(server)
    const lines = linesOf(server).map((line) => JSON.parse(line) as Record<string, unknown>)
    const messages = lines.map((line) => String(line.msg))
    expect(lines.find((line) => String(line.msg).startsWith("Pet Store Service listening on"))).toMatchObject({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      store: "memory",
      database: "process memory (nothing is kept)",
      limiter: "memory",
      adminApi: "on"
    })
    const draining = messages.findIndex((msg) => msg.startsWith("draining: /readyz answers 503; still accepting for 50 ms"))
    const stopped = messages.indexOf("stopped: every connection is closed")
    expect(draining, messages.join("\n")).toBeGreaterThan(0)
    expect(stopped).toBeGreaterThan(draining)
    expect(lines[draining]).toMatchObject({ level: 30, drainDelayMs: 50 })
    expect(server.output()).not.toContain(ADMIN_TOKEN)
  })

  it("pino-pretty reads the lines: level names, pid, message and facts", () =>
    withServer({}, async (server) => {
      const account = await createAccount(server.url)
      expect((await request(`${server.url}/v1/pets`, { key: account.key, headers: { "x-request-id": "pretty-1" } })).status).toBe(200)
      const lines = await pollUntil("the access line", () => {
        const lines = linesOf(server)
        return lines.some((line) => line.includes("pretty-1")) ? lines : undefined
      }, 100, 50)
      const pretty = prettyFactory({ colorize: false })
      const shown = lines.map((line) => pretty(line)).join("")
      expect(shown).toMatch(new RegExp(`INFO \\(${server.process.pid}\\): Pet Store Service listening on http`))
      expect(shown).toMatch(new RegExp(`INFO \\(${server.process.pid}\\): request\\n(\\s+\\w+: .*\\n)*\\s+requestId: "pretty-1"`))
      expect(shown).toContain(`route: "GET /v1/pets"`)
      expect(shown).not.toMatch(/USERLVL/)
    }))

  it("PETSTORE_LOG_FORMAT=text: one readable line per log, its facts as key=value", () =>
    withServer({ PETSTORE_LOG_FORMAT: "text" }, async (server) => {
      const account = await createAccount(server.url)
      expect((await request(`${server.url}/v1/pets`, { key: account.key, headers: { "x-request-id": "text-1" } })).status).toBe(200)
      const line = await pollUntil("the access line", () => linesOf(server).find((line) => line.includes("requestId=text-1")), 100, 50)
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}request /)
      expect(line).toContain(" method=GET")
      expect(line).toContain(" route=\"GET /v1/pets\"")
      expect(line).toContain(" status=200")
      expect(line).toContain(` accountId=${account.accountId}`)
      expect(line).toMatch(/ durationMs=\d+(\.\d+)?/)
      expect(server.output()).toMatch(/INFO {2}Pet Store Service listening on http/)
    }))

  it("PETSTORE_ACCESS_LOG=false: no line per request, the other logs stay", async () => {
    const server = await start({ ...base, PETSTORE_ACCESS_LOG: "false" })
    let lines: Array<Record<string, unknown>>
    try {
      const account = await createAccount(server.url)
      expect((await request(`${server.url}/v1/pets`, { key: account.key })).headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/)
    } finally {
      // Stopping writes whatever was pending.
      await stop(server)
      lines = linesOf(server).map((line) => JSON.parse(line) as Record<string, unknown>)
    }
    expect(lines.some((line) => String(line.msg).startsWith("Pet Store Service listening on"))).toBe(true)
    expect(accessLines(lines)).toEqual([])
  })

  it("SIGTERM while standard output's reader is behind: every access line is written, in order, before the stopped line", async () => {
    const server = await start(base)
    const account = await createAccount(server.url)
    const stdout = server.process.stdout!
    const closed = new Promise<void>((resolve) => stdout.once("close", () => resolve()))
    // The reader stops reading: the pipe fills (64 KB) and the server has to keep what it cannot write.
    stdout.pause()
    const count = 1_200
    for (let i = 0; i < count; i++) {
      const reply = await request(`${server.url}/v1/pets?limit=1`, { key: account.key, headers: { "x-request-id": `order-${i}` } })
      expect(reply.status).toBe(200)
    }
    server.process.kill("SIGTERM")
    await sleep(300)
    stdout.resume()
    await closed
    await exited(server.process)
    const lines = linesOf(server).map((line) => JSON.parse(line) as Record<string, unknown>)
    const ids = accessLines(lines).map((line) => line.requestId).filter((id) => String(id).startsWith("order-"))
    expect(ids.length).toBe(count)
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => `order-${i}`))
    const messages = lines.map((line) => String(line.msg))
    expect(messages.indexOf("stopped: every connection is closed")).toBeGreaterThan(
      lines.findIndex((line) => line.requestId === `order-${count - 1}`)
    )
  })

  for (const [how, settings, args] of [
    ["PETSTORE_LOG_LEVEL=warning", { PETSTORE_LOG_LEVEL: "warning" }, []],
    ["serve --log-level warning (over PETSTORE_LOG_LEVEL=info)", { PETSTORE_LOG_LEVEL: "info" }, ["--log-level", "warning"]],
    ["serve --log-level=warning", {}, ["--log-level=warning"]]
  ] as const) {
    it(`${how}: nothing below warning is written (neither the start line nor access lines)`, async () => {
      const server = await startAnswering({ ...base, ...settings }, args)
      try {
        const account = await createAccount(server.url)
        expect((await request(`${server.url}/v1/pets`, { key: account.key })).status).toBe(200)
      } finally {
        await stop(server)
      }
      expect(server.output()).toBe("")
    })
  }
})

/** A fiber whose log annotations are `annotations` (what a logger reads of it), the rest as by default. */
const fiberWith = (annotations: Record<string, unknown>): Fiber.Fiber<unknown, unknown> =>
  ({
    getRef: (reference: { readonly defaultValue: () => unknown }) =>
      reference === (References.CurrentLogAnnotations as unknown) ? annotations : reference.defaultValue()
  }) as unknown as Fiber.Fiber<unknown, unknown>

describe("the line formats", () => {
  const entry = (message: unknown, annotations: Record<string, unknown>, cause: Cause.Cause<unknown> = Cause.empty) => ({
    logLevel: "Error" as const,
    message,
    cause,
    fiber: fiberWith(annotations),
    date: new Date(Date.UTC(2026, 10, 24, 12, 0, 0, 5))
  })

  it("JSON: a line that parses whatever the message, annotations and error hold", () => {
    const error = new Error("the store broke\n\"badly\"")
    const line = Logging.jsonLogger.log(
      entry(["request failed: \"quoted\"\nnext line", error], { requestId: "r-1", time: "not the time", level: "not the level", msg: "not the message", ratio: Number.NaN, nested: { a: 1 } })
    )
    expect(line).not.toContain("\n")
    expect(JSON.parse(line)).toEqual({
      level: 50,
      time: Date.UTC(2026, 10, 24, 12, 0, 0, 5),
      pid: process.pid,
      hostname: Os.hostname(),
      msg: "request failed: \"quoted\"\nnext line",
      requestId: "r-1",
      ratio: null,
      nested: { a: 1 },
      err: { type: "Error", message: "the store broke\n\"badly\"", stack: expect.stringContaining("the store broke") }
    })
  })

  it("JSON: a failure's cause is its error", () => {
    const line = Logging.jsonLogger.log(entry("a failure", {}, Cause.fail(new Error("went wrong"))))
    expect(JSON.parse(line)).toMatchObject({ msg: "a failure", err: { stack: expect.stringContaining("went wrong") } })
  })

  it("text: one line, values with spaces or quotes quoted, the error indented below", () => {
    const text = Logging.textLogger.log(entry(["request failed", new Error("boom")], { requestId: "r-1", route: "GET /v1/pets" }))
    const [first, ...rest] = text.split("\n")
    expect(first).toMatch(/^2026-11-24T12:00:00\.005Z ERROR request failed /)
    expect(first).toContain(" requestId=r-1")
    expect(first).toContain(" route=\"GET /v1/pets\"")
    expect(rest[0]).toMatch(/^ {4}Error: boom/)
  })

  // The access line written from its facts is the line jsonLogger writes for the same log call.
  const text = fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.constantFrom("", "\"", "\\", "\n", "\u2028", "\ud800"))
  const facts = fc.record({
    requestId: text,
    reqId: fc.option(text, { nil: undefined }),
    method: text,
    path: text,
    route: fc.option(text, { nil: undefined }),
    status: fc.integer({ min: 100, max: 599 }),
    clientAddress: text,
    durationMs: fc.oneof(fc.double(), fc.constantFrom(0, 0.001, Number.NaN, Number.POSITIVE_INFINITY)),
    accountId: fc.option(text, { nil: undefined })
  })
  prop("JSON: an access line written from its facts is the line of Effect's log call with them as annotations", [
    facts,
    fc.integer({ min: 0, max: 4_102_444_800_000 })
  ], ([facts, millis]) => {
    const annotations = Object.fromEntries(AccessLine.KEYS.flatMap((key) => facts[key] === undefined ? [] : [[key, facts[key]] as const]))
    const logged = Logging.jsonLogger.log({
      logLevel: "Info",
      message: [AccessLine.MESSAGE],
      cause: Cause.empty,
      fiber: fiberWith(annotations),
      date: new Date(millis)
    })
    const line = Logging.jsonAccessLine(facts, millis)
    expect(line).not.toContain("\n")
    expect(JSON.parse(line)).toEqual(JSON.parse(logged))
    // The same keys in the facts' order: the line's own order, whatever the map's.
    expect(Object.keys(JSON.parse(line))).toEqual(["level", "time", "pid", "hostname", "msg", ...AccessLine.KEYS.filter((key) => facts[key] !== undefined)])
  })

  it("the default format: text on a terminal, JSON otherwise", () => {
    expect(Logging.defaultFormat({ isTTY: true })).toBe("text")
    expect(Logging.defaultFormat({ isTTY: false })).toBe("json")
    expect(Logging.defaultFormat({})).toBe("json")
  })
})

describe("the batched writer", () => {
  /** A stream that keeps what it is given, and says it still holds `held` bytes unwritten. */
  const recording = (held: () => number) => {
    const chunks: Array<string | Uint8Array> = []
    return {
      chunks,
      text: () => chunks.map((chunk) => (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"))).join(""),
      stream: {
        write: (chunk: string | Uint8Array) => chunks.push(chunk),
        get writableLength() {
          return held()
        }
      }
    }
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  it("one write per turn of the event loop, the lines in order; as text when the stream takes it at once", async () => {
    const out = recording(() => 0)
    const writer = Logging.batchedWriter(out.stream)
    writer.write("one")
    writer.write("two")
    expect(out.chunks).toEqual([])
    await turn()
    writer.write("three")
    await turn()
    expect(out.chunks).toEqual(["one\ntwo\n", "three\n"])
  })

  it("as bytes (off the JS heap) when the stream still holds unwritten output; nothing lost, order kept, UTF-8 intact", async () => {
    let held = 0
    const out = recording(() => held)
    const writer = Logging.batchedWriter(out.stream)
    writer.write("first")
    await turn()
    held = 70_000
    writer.write("second ünïcödé 🐾")
    writer.write("third")
    await turn()
    held = 0
    writer.write("fourth")
    writer.flush()
    expect(typeof out.chunks[0]).toBe("string")
    expect(out.chunks[1]).toBeInstanceOf(Uint8Array)
    expect(typeof out.chunks[2]).toBe("string")
    expect(out.text()).toBe("first\nsecond ünïcödé 🐾\nthird\nfourth\n")
  })

  it("drained: waits until the stream holds nothing unwritten, and no longer than it is given", async () => {
    let held = 10
    setTimeout(() => (held = 0), 50)
    const started = Date.now()
    await Effect.runPromise(Logging.drained({ write: () => true, get writableLength() { return held } }))
    expect(held).toBe(0)
    expect(Date.now() - started).toBeGreaterThanOrEqual(40)
    const stuck = Date.now()
    await Effect.runPromise(Logging.drained({ write: () => true, writableLength: 1 }, "100 millis"))
    expect(Date.now() - stuck).toBeLessThan(5_000)
  })

  it("drained as a finalizer (where the log layer runs it, uninterruptible): still gives up at its bound", async () => {
    const stuck = Date.now()
    await Effect.runPromise(Effect.scoped(Effect.addFinalizer(() => Logging.drained({ write: () => true, writableLength: 1 }, "100 millis"))))
    expect(Date.now() - stuck).toBeLessThan(5_000)
  })
})
