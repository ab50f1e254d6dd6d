/**
 * What `petstore serve` loads: only the modules of what it runs. The real server is started with a
 * recorder of every module it imports, serves requests, and the record is read.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import { ADMIN_TOKEN, createAccount, post, request } from "./support/Http.js"
import { type Settings, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()

const RECORDER = `--import ${new URL("./support/record-modules.mjs", import.meta.url).href}`

/** Packages a server on `memory` with defaults (metrics on, tracing off) has no use for. */
const NEVER_ON_MEMORY = [
  // The command line: Effect 4's is a part of `effect` (its modules under `effect/dist/cli/`).
  "effect/cli",
  "@effect/cli",
  "@effect/printer",
  "@petstore/testkit",
  "@opentelemetry",
  "better-sqlite3",
  "pg",
  "@redis/client",
  "prom-client"
]

/** The packages of the modules recorded so far (pnpm's `node_modules/<scope>/<name>` paths, and workspace packages). */
const loadedPackages = (record: string): Set<string> => {
  const packages = new Set<string>()
  for (const url of Fs.readFileSync(record, "utf8").split("\n")) {
    const dependency = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*\/node_modules\/)/.exec(url)
    if (dependency !== null) packages.add(dependency[1]!)
    // Effect's command line, a part of the `effect` package in Effect 4, named as a package of its own.
    if (dependency?.[1] === "effect" && /\/node_modules\/effect\/dist\/cli\//.test(url)) packages.add("effect/cli")
    const workspace = /\/packages\/([^/]+)\/(?:dist|src)\//.exec(url)
    if (workspace !== null && dependency === null) packages.add(`@petstore/${workspace[1]}`)
  }
  return packages
}

const withRecord = async (settings: Settings, body: (url: string, loaded: () => Set<string>) => Promise<void>) => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-modules-"))
  const record = Path.join(directory, "modules.txt")
  try {
    const server = await start({ ...settings, NODE_OPTIONS: RECORDER, PETSTORE_TEST_MODULE_RECORD: record })
    try {
      await body(server.url, () => loadedPackages(record))
    } finally {
      await stop(server)
    }
  } finally {
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

const PET = { name: "Rex", categoryId: 3, status: "available" }

const matching = (loaded: Set<string>, name: string) => [...loaded].filter((p) => p === name || p.startsWith(`${name}/`))

describe("the modules petstore serve loads", () => {
  it("on memory with the defaults: neither the command line, the testkit, a store driver, prom-client (before a scrape) nor OpenTelemetry", async () => {
    await withRecord({ PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }, async (url, loaded) => {
      const account = await createAccount(url)
      expect((await request(`${url}/v1/pets`, { key: account.key })).status).toBe(200)
      expect((await post(url, "/v1/pets", account.key, PET)).status).toBe(201)
      const packages = loaded()
      expect(packages.has("@petstore/http-node")).toBe(true)
      expect(NEVER_ON_MEMORY.flatMap((name) => matching(packages, name))).toEqual([])
      // Metrics still work: the exporter comes with the first scrape.
      const scrape = await request(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
      expect(scrape.status).toBe(200)
      expect(scrape.body).toContain("petstore_http_requests_total")
      expect(loaded().has("prom-client")).toBe(true)
    })
  })

  it("on SQLite: better-sqlite3, and neither pg nor the Redis client", async () => {
    const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-modules-sqlite-"))
    try {
      await withRecord(
        { PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: Path.join(directory, "petstore.db"), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN },
        async (url, loaded) => {
          const account = await createAccount(url)
          expect((await request(`${url}/v1/pets`, { key: account.key })).status).toBe(200)
          const packages = loaded()
          expect(packages.has("better-sqlite3")).toBe(true)
          expect(["pg", "@redis/client", "effect/cli", "@effect/cli", "@petstore/testkit"].flatMap((name) => matching(packages, name))).toEqual([])
        }
      )
    } finally {
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  })

  // Each store's registration loads its adapter only when the configuration chooses it.
  it.skipIf("skip" in database)("on PostgreSQL: pg, and neither better-sqlite3 nor the Redis client", async () => {
    const databaseUrl = await (database as TestDatabase.TestDatabase).freshUrl()
    await withRecord({ PETSTORE_DATABASE: databaseUrl, PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }, async (url, loaded) => {
      const account = await createAccount(url)
      expect((await request(`${url}/v1/pets`, { key: account.key })).status).toBe(200)
      const packages = loaded()
      expect(packages.has("pg")).toBe(true)
      expect(["better-sqlite3", "@redis/client", "effect/cli", "@effect/cli", "@petstore/testkit"].flatMap((name) => matching(packages, name))).toEqual([])
    })
  })
})
