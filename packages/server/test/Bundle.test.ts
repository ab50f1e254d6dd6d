/**
 * The bundled server (`pnpm bundle`: packages/server/dist-bundle/petstore.mjs) is the same server:
 * built here from `dist/` by the bundle script, started as `petstore serve` is, it passes the
 * conformance checker through real HTTP on the in-memory and the SQLite store, serves metrics, stops
 * cleanly on SIGTERM, and loads neither fast-check nor a module from outside the bundle other than
 * the native SQLite driver.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "@petstore/testkit"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { ADMIN_TOKEN, request } from "./support/Http.js"
import { type Settings, start, stop } from "./support/ServerProcess.js"

const SERVER = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const BUNDLE = Path.join(SERVER, "dist-bundle/petstore.mjs")
const RECORDER = `--import ${new URL("./support/record-modules.mjs", import.meta.url).href}`

execFileSync(process.execPath, [Path.join(SERVER, "scripts/bundle.mjs")], { stdio: "ignore", timeout: 120_000 })

/** Runs the bundle with `settings`, recording the modules it imports; `body` gets its URL and that record. */
const withBundle = async (settings: Settings, body: (url: string, modules: () => Array<string>) => Promise<void>) => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-bundle-"))
  const record = Path.join(directory, "modules.txt")
  try {
    const server = await start(
      { PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, NODE_OPTIONS: RECORDER, PETSTORE_TEST_MODULE_RECORD: record, ...settings },
      BUNDLE
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

const conforms = async (url: string) => {
  const report = await runConformance({ baseUrl: url, adminToken: ADMIN_TOKEN, seed: 31, numRuns: 60 })
  expect(report.ok, formatReport(report)).toBe(true)
}

describe("the bundled server", () => {
  it("on memory: conforms through real HTTP, serves metrics, and loads only its own files (no fast-check)", async () => {
    await withBundle({ PETSTORE_STORE: "memory" }, async (url, modules) => {
      await conforms(url)
      const scrape = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(scrape.status).toBe(200)
      expect(scrape.body).toContain("petstore_http_requests_total")
      const loaded = modules()
      expect(loaded.length).toBeGreaterThan(0)
      expect(loaded.filter((m) => !m.includes("/dist-bundle/"))).toEqual([])
      expect(loaded.filter((m) => m.includes("fast-check"))).toEqual([])
    })
  }, 180_000)

  it("on SQLite: conforms through real HTTP, with the native driver loaded from node_modules", async () => {
    const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-bundle-sqlite-"))
    try {
      await withBundle({ PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: Path.join(directory, "petstore.db") }, async (url) => {
        await conforms(url)
      })
      expect(Fs.existsSync(Path.join(directory, "petstore.db"))).toBe(true)
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }, 180_000)
})
