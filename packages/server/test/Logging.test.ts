/**
 * The standalone server's logs, read from the real process's output: JSON lines (the default when
 * the output is not a terminal) or text, the access line per request, the level, and that no key,
 * token or body ever reaches them.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, FiberId, FiberRefs, HashMap, List, LogLevel } from "effect"
import { spawn } from "node:child_process"
import * as Logging from "../src/Logging.js"
import { ADMIN_TOKEN, createAccount, request } from "./support/Http.js"
import { BIN, freePort, pollUntil, type Server, type Settings, start, stop } from "./support/ServerProcess.js"

const base: Settings = { PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }

const linesOf = (server: Server) => server.output().split("\n").filter((line) => line.length > 0)

/** The parsed JSON lines of the output once `until` holds for them (bounded poll). */
const jsonLines = (server: Server, until: (lines: Array<Record<string, unknown>>) => boolean) =>
  pollUntil("the log lines", () => {
    const lines = linesOf(server).map((line) => JSON.parse(line) as Record<string, unknown>)
    return until(lines) ? lines : undefined
  }, 100, 50)

const accessLines = (lines: Array<Record<string, unknown>>) => lines.filter((line) => line.message === "request")

const withServer = async (settings: Settings, test: (server: Server) => Promise<void>) => {
  const server = await start({ ...base, ...settings })
  try {
    await test(server)
  } finally {
    await stop(server)
  }
}

describe("logs of the standalone server", () => {
  it("JSON by default off a terminal: every line parses, with time, level and message; one access line per request", () =>
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
      expect((await request(`${server.url}/v1/pets`, { headers: { authorization: "Bearer psk_live_notakey0000000000000000000" } })).status)
        .toBe(401)

      const lines = await jsonLines(server, (lines) => accessLines(lines).length >= 4)
      for (const line of lines) {
        expect(line).toMatchObject({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/), level: expect.any(String) })
        expect(typeof line.message).toBe("string")
      }
      expect(lines[0]).toMatchObject({ level: "info", message: expect.stringMatching(/^Pet Store Service listening on /) })
      const access = accessLines(lines)
      expect(access.find((line) => line.requestId === "json-1")).toEqual({
        time: expect.any(String),
        level: "info",
        message: "request",
        requestId: "json-1",
        method: "POST",
        route: "POST /v1/pets",
        status: 201,
        durationMs: expect.any(Number),
        accountId: account.accountId
      })
      expect(access.find((line) => line.requestId === "json-2")).toEqual(expect.objectContaining({ method: "GET", status: 404, accountId: account.accountId }))
      expect(access.find((line) => line.requestId === "json-2")).not.toHaveProperty("route")
      expect(access.find((line) => line.status === 401)).not.toHaveProperty("accountId")
      expect(access.find((line) => line.route === "POST /admin/v1/accounts")).toMatchObject({ status: 201 })

      // Keys, tokens, Authorization headers and bodies never reach the logs.
      const output = server.output()
      for (const secret of [account.key, ADMIN_TOKEN, "psk_live_notakey", "Bearer", "Secret-Pet-Name-42"]) {
        expect(output).not.toContain(secret)
      }
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
    expect(lines.some((line) => String(line.message).startsWith("Pet Store Service listening on"))).toBe(true)
    expect(accessLines(lines)).toEqual([])
  })

  it("PETSTORE_LOG_LEVEL=warning: nothing below warning is written (neither the start line nor access lines)", async () => {
    const port = await freePort()
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("PETSTORE_")) env[k] = v
    const child = spawn(process.execPath, [BIN, "serve"], {
      env: { ...env, ...base, PETSTORE_LOG_LEVEL: "warning", PORT: String(port), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout!.on("data", (chunk) => (output += String(chunk)))
    child.stderr!.on("data", (chunk) => (output += String(chunk)))
    try {
      const url = `http://127.0.0.1:${port}`
      await pollUntil("the server to answer", async () => {
        if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`)
        return (await fetch(`${url}/v1/openapi.json`).then((r) => r.status, () => undefined)) === 200 ? true : undefined
      }, 600, 100)
      const account = await createAccount(url)
      expect((await request(`${url}/v1/pets`, { key: account.key })).status).toBe(200)
    } finally {
      await stop({ process: child })
    }
    expect(output).toBe("")
  })
})

describe("the line formats", () => {
  const entry = (message: unknown, annotations: Record<string, unknown>, cause: Cause.Cause<unknown> = Cause.empty) => ({
    fiberId: FiberId.none,
    logLevel: LogLevel.Error,
    message,
    cause,
    context: FiberRefs.empty(),
    spans: List.empty(),
    annotations: HashMap.fromIterable(Object.entries(annotations)),
    date: new Date(Date.UTC(2026, 10, 24, 12, 0, 0, 5))
  })

  it("JSON: a line that parses whatever the message, annotations and error hold", () => {
    const error = new Error("the store broke\n\"badly\"")
    const line = Logging.jsonLogger.log(
      entry(["request failed: \"quoted\"\nnext line", error], { requestId: "r-1", time: "not the time", ratio: Number.NaN, nested: { a: 1 } })
    )
    expect(line).not.toContain("\n")
    expect(JSON.parse(line)).toEqual({
      time: "2026-11-24T12:00:00.005Z",
      level: "error",
      message: "request failed: \"quoted\"\nnext line",
      requestId: "r-1",
      ratio: null,
      nested: { a: 1 },
      error: expect.stringContaining("the store broke")
    })
  })

  it("JSON: a failure's cause is its error", () => {
    const line = Logging.jsonLogger.log(entry("a failure", {}, Cause.fail(new Error("went wrong"))))
    expect(JSON.parse(line)).toMatchObject({ message: "a failure", error: expect.stringContaining("went wrong") })
  })

  it("text: one line, values with spaces or quotes quoted, the error indented below", () => {
    const text = Logging.textLogger.log(entry(["request failed", new Error("boom")], { requestId: "r-1", route: "GET /v1/pets" }))
    const [first, ...rest] = text.split("\n")
    expect(first).toMatch(/^2026-11-24T12:00:00\.005Z ERROR request failed /)
    expect(first).toContain(" requestId=r-1")
    expect(first).toContain(" route=\"GET /v1/pets\"")
    expect(rest[0]).toMatch(/^ {4}Error: boom/)
  })

  it("the default format: text on a terminal, JSON otherwise", () => {
    expect(Logging.defaultFormat({ isTTY: true })).toBe("text")
    expect(Logging.defaultFormat({ isTTY: false })).toBe("json")
    expect(Logging.defaultFormat({})).toBe("json")
  })
})
