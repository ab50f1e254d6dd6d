/**
 * The rolling-restart drill: three instances on one PostgreSQL database and one Redis behind HAProxy
 * configured by docs/deploy/haproxy.cfg (Debian's haproxy), twelve keep-alive clients without pause
 * (reads, keyed creates, and a client on an account with a small daily quota).
 *
 * 1. Each instance in turn gets SIGTERM, exits 0 once drained, and is started again on its address;
 *    the next waits until HAProxy reports it up. No request fails at the client (no 5xx, no reset, no
 *    time-out), the drill lasts at least 30 s, every acknowledged pet is there after, and the quota is
 *    exact: the quota account gets exactly its daily allowance, however its requests were spread.
 * 2. Then one instance is killed (SIGKILL): only requests in flight on it may fail, and each of them,
 *    sent again with its Idempotency-Key, has exactly one effect.
 * The counts are printed for the closing figures (docs/deploy/README.md).
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as TestRedis from "../../redis/test/support/TestRedis.js"
import { haproxyMissing, startBalancer } from "./support/Balancer.js"
import { drillSettings, failures, petsByName, replaceInstance, startClients } from "./support/Drill.js"
import { createAccount } from "./support/Http.js"
import { exited, freePort, pollUntil, type Server, start, stop } from "./support/ServerProcess.js"

const database = await TestDatabase.make()
const redis = await TestRedis.make()
const skip = haproxyMissing ?? ("skip" in database ? database.skip : "skip" in redis ? redis.skip : undefined)

/** The least the drill runs with clients on it. */
const DRILL_MS = 30_000
const QUOTA = 40

describe.skipIf(skip !== undefined && process.env.CI !== "true")(
  `rolling restart behind HAProxy (docs/deploy/haproxy.cfg)${skip === undefined ? "" : ` (skipped: ${skip})`}`,
  () => {
    const processes: Array<{ stop: () => Promise<void> }> = []
    afterAll(async () => {
      await Promise.all(processes.map((p) => p.stop()))
    })

    it("SIGTERM to each instance in turn: no failed request, nothing lost, the quota exact; then SIGKILL: only requests in flight fail, and sent again with their key each has one effect", async () => {
      expect(skip).toBeUndefined()
      if ("skip" in database || "skip" in redis) return
      const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-rolling-"))
      processes.push({ stop: async () => Fs.rmSync(folder, { recursive: true, force: true }) })
      const settings = drillSettings(await database.freshUrl(), { url: redis.url, prefix: redis.freshPrefix() })
      const ports = [await freePort(), await freePort(), await freePort()]
      const servers: Array<Server> = []
      for (const port of ports) servers.push(await start({ ...settings, PORT: String(port) }))
      processes.push({ stop: () => Promise.all(servers.map(stop)).then(() => undefined) })
      const lbPort = await freePort()
      const balancer = await startBalancer(lbPort, ports, folder)
      processes.push({ stop: () => (balancer.child.kill("SIGKILL"), exited(balancer.child)) })
      await pollUntil("HAProxy to hold the three instances up", async () => ((await balancer.up()).length === 3 ? true : undefined), 200, 50)
      const base = `http://127.0.0.1:${lbPort}`
      const account = await createAccount(servers[0]!.url)
      const quota = await createAccount(servers[0]!.url, { plan: "enterprise", limits: { perMinute: 100_000, perDay: QUOTA } })

      // 1. The rolling restart, under load.
      let running = true
      const began = Date.now()
      const load = startClients(base, account.key, quota.key, () => running)
      // However the drill ends, the clients stop (an assertion failing mid-drill leaves none spinning).
      processes.unshift({ stop: async () => {
        running = false
        await load.done()
      } })
      for (let i = 0; i < servers.length; i++) {
        await replaceInstance(balancer, `app${i + 1}`, servers[i]!, async () => (servers[i] = await start(settings)))
      }
      await pollUntil("the drill's 30 s", async () => (Date.now() - began >= DRILL_MS ? true : undefined), 700, 50)
      running = false
      await load.done()
      const failed = failures(load.outcomes)
      const quotaAllowed = load.outcomes.filter((o) => o.what === "quota" && o.status === 200).length
      console.log(
        `rolling restart: ${load.outcomes.length} requests in ${Date.now() - began} ms, ${failed.length} failed, ${load.created.size} pets acknowledged, quota ${quotaAllowed} of ${QUOTA}`
      )
      expect(failed.slice(0, 5)).toEqual([])
      expect(load.outcomes.filter((o) => o.what === "quota").length).toBeGreaterThan(QUOTA)
      expect(quotaAllowed).toBe(QUOTA)
      for (const o of load.outcomes.filter((o) => o.what === "quota" && o.status !== 200)) {
        // Refused for its quota, or banned for asking on regardless (the ban policy).
        expect(o).toMatchObject({ status: 429, detail: expect.stringMatching(/daily_quota_exceeded|key_banned/) })
      }
      const afterRestarts = await petsByName(base, account.key)
      for (const [name] of load.created) expect(afterRestarts.get(name), name).toBe(1)

      // 2. SIGKILL of one instance under load: what failed is sent again with its key, and has one effect.
      running = true
      const crash = startClients(base, account.key, quota.key, () => running)
      processes.unshift({ stop: async () => {
        running = false
        await crash.done()
      } })
      await pollUntil("requests on every instance", async () => (crash.outcomes.length >= 60 ? true : undefined), 600, 20)
      servers[1]!.process.kill("SIGKILL")
      await exited(servers[1]!.process)
      await pollUntil("HAProxy to take app2 out", async () => (!(await balancer.up()).includes("app2") ? true : undefined), 400, 50)
      const after = crash.outcomes.length
      await pollUntil("more requests after the crash", async () => (crash.outcomes.length >= after + 60 ? true : undefined), 600, 20)
      running = false
      await crash.done()
      const lost = crash.outcomes.filter((o) => o.status === "error" || o.status >= 500)
      console.log(
        `SIGKILL of one instance: ${crash.outcomes.length} requests, ${lost.length} failed (in flight on it), ${crash.retries()} sent again with their key`
      )
      // At most the requests in flight on it: one per client.
      expect(lost.length).toBeLessThanOrEqual(12)
      const afterCrash = await petsByName(base, account.key)
      for (const [name] of crash.created) expect(afterCrash.get(name), name).toBe(1)
    }, 180_000)
  }
)
