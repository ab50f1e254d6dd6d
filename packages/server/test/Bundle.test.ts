/**
 * The server as shipped (the `petstore` command, bin/petstore.cjs: the bundle `pnpm run build` writes,
 * packages/server/dist-bundle/petstore.cjs, compiled from its code cache) is the same server: started
 * as `petstore serve` is, it passes the conformance checker through real HTTP on the in-memory (with
 * the checker's webhook receiver: deliveries go through undici, loaded at the first) and the SQLite
 * store, serves metrics, stops cleanly on SIGTERM, and loads neither fast-check nor a
 * module from outside the bundle other than the native SQLite driver and undici (from node_modules).
 */
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "@petstore/testkit"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ADMIN_TOKEN, request } from "./support/Http.js"
import { type Settings, start, stop } from "./support/ServerProcess.js"

const SERVER = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const COMMAND = Path.join(SERVER, "bin/petstore.cjs")
const BUNDLE = Path.join(SERVER, "dist-bundle/petstore.cjs")
/** Whether a recorded module is the shipped command's own: its files, the bundle, or its package.json (the version). */
const own = (url: string) => ["/packages/server/dist-bundle/", "/packages/server/bin/", "/packages/server/package.json"].some((part) => url.includes(part))
const RECORDER = `--import ${new URL("./support/record-modules.mjs", import.meta.url).href}`

if (!Fs.existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run \`pnpm run build\` before this test`)

/** Runs the shipped command with `settings`, recording the modules it imports; `body` gets its URL and that record. */
const withBundle = async (settings: Settings, body: (url: string, modules: () => Array<string>) => Promise<void>) => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-bundle-"))
  const record = Path.join(directory, "modules.txt")
  try {
    const server = await start(
      { PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, NODE_OPTIONS: RECORDER, PETSTORE_TEST_MODULE_RECORD: record, ...settings },
      COMMAND
    )
    try {
      await body(server.url, () => Fs.readFileSync(record, "utf8").split("\n").filter((line) => line.startsWith("file:")))
    } finally {
      await stop(server)
    }
    expect(server.process.exitCode).toBe(0)
    expect(server.stderr()).not.toMatch(/\b(ERROR|FATAL)\b/)
  } finally {
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

/** The conformance checker against `url`; with `webhooks`, through its receiver too (every message accepted must arrive, signed). */
const conforms = async (url: string, webhooks = false) => {
  const report = await runConformance({ baseUrl: url, adminToken: ADMIN_TOKEN, seed: 31, numRuns: 60, ...(webhooks ? { webhookReceiver: true } : {}) })
  expect(report.ok, formatReport(report)).toBe(true)
  if (webhooks) expect(report.webhooks?.deliveries ?? 0, formatReport(report)).toBeGreaterThan(0)
}

describe("the server as shipped (the bundle)", () => {
  it("on memory: conforms through real HTTP (webhooks delivered too), serves metrics, and loads only its own files and undici (no fast-check)", async () => {
    await withBundle({ PETSTORE_STORE: "memory", PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true" }, async (url, modules) => {
      await conforms(url, true)
      const scrape = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(scrape.status).toBe(200)
      expect(scrape.body).toContain("petstore_http_requests_total")
      const loaded = new Set(modules())
      expect(loaded).toContain(new URL(`file://${BUNDLE}`).href)
      // undici (webhook delivery's client) comes from node_modules, at the first delivery.
      const outside = [...loaded].filter((m) => !own(m))
      expect(outside.some((m) => m.includes("/undici/"))).toBe(true)
      expect(outside.filter((m) => !m.includes("/node_modules/undici/"))).toEqual([])
      expect([...loaded].filter((m) => m.includes("fast-check"))).toEqual([])
    })
  }, 180_000)

  it("on SQLite: conforms through real HTTP, with the native driver loaded from node_modules", async () => {
    const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-bundle-sqlite-"))
    try {
      await withBundle({ PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: Path.join(directory, "petstore.db") }, async (url, modules) => {
        await conforms(url)
        const outside = modules().filter((m) => !own(m))
        expect(outside.some((m) => m.includes("/better-sqlite3/"))).toBe(true)
        expect(outside.filter((m) => !m.includes("/node_modules/"))).toEqual([])
      })
      expect(Fs.existsSync(Path.join(directory, "petstore.db"))).toBe(true)
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }, 180_000)
})
