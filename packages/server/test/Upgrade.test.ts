/**
 * The upgrade drill: the previous release (built from git history, support/PreviousRelease.ts) and
 * today's program serve together through the migration, behind HAProxy (docs/deploy/haproxy.cfg),
 * on one PostgreSQL database and one Redis, with twelve keep-alive clients without pause (reads and
 * keyed creates).
 *
 * Two instances of the previous release start on a new database (the schema at its version). Then
 * the rolling deploy: an instance of today's program starts (it migrates at start) and joins the
 * pool; while the three serve, each old one is seen answering after the migration committed (and
 * one more instance of the previous release starts on the migrated schema and writes); then
 * each old one gets SIGTERM in turn and a new one takes its place. Then the contract step, refused
 * while the previous release served: the switch to concurrent pet ids, under load. No request fails
 * at the client, and every acknowledged pet is listed once after.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Postgres from "@petstore/postgres"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as TestRedis from "../../redis/test/support/TestRedis.js"
import { haproxyMissing, startBalancer } from "./support/Balancer.js"
import { drillSettings, failures, petsByName, replaceInstance, startClients } from "./support/Drill.js"
import { createAccount, post } from "./support/Http.js"
import * as PreviousRelease from "./support/PreviousRelease.js"
import { cli, exited, freePort, pollUntil, type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()
const redis = await TestRedis.make()
const skip = PreviousRelease.unavailable ?? haproxyMissing ??
  ("skip" in database ? database.skip : "skip" in redis ? redis.skip : undefined)
const LATEST = Math.max(...Postgres.Migrations.MIGRATIONS.map((m) => m.id))

describe.skipIf(skip !== undefined && process.env.CI !== "true")(
  `upgrade from the previous release (${PreviousRelease.COMMIT.slice(0, 7)}, schema ${PreviousRelease.SCHEMA}) behind HAProxy${
    skip === undefined ? "" : ` (skipped: ${skip})`
  }`,
  () => {
    const processes: Array<{ stop: () => Promise<void> }> = []
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
    })
    let previousBin = ""
    // Built once per commit and cached under ~/.cache/petstore/releases (a minute or two the first time).
    beforeAll(async () => {
      if (skip === undefined) previousBin = await PreviousRelease.build()
    }, 900_000)

    it("the previous release and today's serve together through the migration: no failed request, nothing lost", async () => {
      if (skip !== undefined) throw new Error(`CI=true and ${skip}`)
      if ("skip" in database || "skip" in redis) return
      expect(PreviousRelease.SCHEMA).toBeLessThan(LATEST)
      const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-upgrade-"))
      processes.push({ stop: async () => Fs.rmSync(folder, { recursive: true, force: true }) })
      const url = await database.freshUrl()
      const sql = TestDatabase.connect(url)
      processes.push({ stop: () => sql.end() })
      const schemaVersion = async () => (await sql.query<{ version: number }>("SELECT max(id) AS version FROM schema_migrations"))[0]?.version
      const settings = drillSettings(url, { url: redis.url, prefix: redis.freshPrefix() })
      // app1 and app2: the previous release. app3: in maintenance, pointed at a port nothing listens
      // on, until today's program takes it.
      const ports = [await freePort(), await freePort(), await freePort()]
      const servers: Array<Server> = []
      processes.push({ stop: () => Promise.all(servers.map(stop)).then(() => undefined) })
      for (const port of ports.slice(0, 2)) servers.push(await start({ ...settings, PORT: String(port) }, previousBin))
      expect(await schemaVersion()).toBe(PreviousRelease.SCHEMA)
      const lbPort = await freePort()
      const balancer = await startBalancer(lbPort, ports, folder)
      processes.push({ stop: () => (balancer.child.kill("SIGKILL"), exited(balancer.child)) })
      await balancer.setState("app3", "maint")
      await pollUntil("HAProxy to hold the previous release's two instances up", async () => ((await balancer.up()).length === 2 ? true : undefined), 200, 50)
      const base = `http://127.0.0.1:${lbPort}`
      const account = await createAccount(servers[0]!.url)

      let running = true
      const began = Date.now()
      const load = startClients(base, account.key, undefined, () => running)
      // However the drill ends, the clients stop (an assertion failing mid-drill leaves none spinning).
      processes.unshift({ stop: async () => {
        running = false
        await load.done()
      } })
      /** Waits for `count` more answers at the clients: a step of the deploy under load. */
      const traffic = async (what: string, count = 150) => {
        const from = load.outcomes.length
        await pollUntil(what, async () => (load.outcomes.length >= from + count ? true : undefined), 3000, 20)
      }
      await traffic("requests on the previous release")

      // Today's program migrates at start, while the previous release serves; then it joins the pool.
      servers.push(await start(settings))
      expect(await schemaVersion()).toBe(LATEST)
      const atMigration = await balancer.answered()
      await balancer.move("app3", Number(new URL(servers[2]!.url).port))
      await balancer.setState("app3", "ready")
      await pollUntil("HAProxy to hold app3 (today's program) up", async () => ((await balancer.up()).includes("app3") ? true : undefined), 400, 50)
      // Both releases serve at the same time on the migrated schema: each instance answers requests
      // (2xx, counted by HAProxy) after the migration committed; each old one writes on it too.
      await pollUntil("each instance to answer requests after the migration", async () => {
        const now = await balancer.answered()
        return ["app1", "app2", "app3"].every((name) => now.get(name)! > atMigration.get(name)!) ? true : undefined
      }, 3000, 20)
      // An instance of the previous release started now (an orchestrator restarting one mid-deploy)
      // serves too: the schema is newer than it knows, and compatible.
      const late = await start(settings, previousBin)
      servers.push(late)
      const direct = new Map<string, number>()
      for (const old of [servers[0]!, servers[1]!, late]) {
        const name = `written by the previous release at ${old.url}`
        const reply = await post(old.url, "/v1/pets", account.key, { name, categoryId: 1 })
        expect(reply.status, JSON.stringify(reply.body)).toBe(201)
        direct.set(name, reply.body.id)
      }
      await stop(late)
      await traffic("requests with both releases in the pool")
      // The contract step of concurrent pet ids is refused while the previous release serves, naming its instances.
      const early = await cli(settings, ["pet-ids", "--concurrent"])
      expect([early.code, early.stderr]).toEqual([1, expect.stringMatching(/2 instances of a release that lists pets without the frontier serve this database: petstore serve pid/)])
      const together = await balancer.answered()
      const sinceMigration = ["app1", "app2", "app3"].map((name) => `${name} ${together.get(name)! - atMigration.get(name)!}`).join(", ")

      // The previous release's instances replaced one at a time by today's.
      for (let i = 0; i < 2; i++) {
        await replaceInstance(balancer, `app${i + 1}`, servers[i]!, async () => (servers[i] = await start(settings)))
        await traffic(`requests after app${i + 1} was replaced`)
      }
      // Once only today's program serves: the switch, under load; no request fails and every pet is listed once.
      expect((await cli(settings, ["pet-ids"])).stdout).toMatch(/pet ids taken from the counter row/)
      const switched = await cli(settings, ["pet-ids", "--concurrent"])
      expect([switched.code, switched.stdout]).toEqual([0, expect.stringMatching(/pet ids taken concurrently .*: switched now/)])
      expect((await sql.query<{ requires: number }>("SELECT max(requires_program) AS requires FROM schema_migrations"))[0]?.requires).toBe(
        Postgres.PetIds.CONCURRENT_IDS_MIGRATION
      )
      await traffic("requests after the switch to concurrent pet ids")
      running = false
      await load.done()

      const failed = failures(load.outcomes)
      console.log(
        `upgrade from ${PreviousRelease.COMMIT.slice(0, 7)}: ${load.outcomes.length} requests in ${Date.now() - began} ms, ${failed.length} failed, ${load.created.size} pets acknowledged, ${load.retries()} creates sent again; answered after the migration, before the first SIGTERM: ${sinceMigration} (app1, app2 the previous release)`
      )
      expect(failed.slice(0, 5)).toEqual([])
      const pets = await petsByName(base, account.key)
      for (const name of [...load.created.keys(), ...direct.keys()]) expect(pets.get(name), name).toBe(1)
    }, 120_000)
  }
)
