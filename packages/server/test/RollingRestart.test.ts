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
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as TestRedis from "../../redis/test/support/TestRedis.js"
import { ADMIN_TOKEN, createAccount, request } from "./support/Http.js"
import { exited, freePort, pollUntil, type Server, start, stop } from "./support/ServerProcess.js"

const CONFIG = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../docs/deploy/haproxy.cfg")
/** Debian installs it in /usr/sbin, which a user's PATH may not hold. */
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((path) => Fs.existsSync(path)) ?? "haproxy"
const haproxyMissing = (() => {
  try {
    execFileSync(HAPROXY, ["-v"], { stdio: "ignore" })
    return undefined
  } catch {
    return "haproxy is not installed (Debian's package haproxy)"
  }
})()
const database = await TestDatabase.make()
const redis = await TestRedis.make()
const skip = haproxyMissing ?? ("skip" in database ? database.skip : "skip" in redis ? redis.skip : undefined)

/** The least the drill runs with clients on it. */
const DRILL_MS = 30_000
const QUOTA = 40

/** HAProxy on `bind` with the three instances at `apps`; `up()` says which it sends traffic to. */
const startBalancer = async (bind: number, apps: ReadonlyArray<number>, folder: string) => {
  const socket = Path.join(folder, "haproxy.sock")
  const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", CONFIG], {
    env: {
      PATH: process.env.PATH ?? "",
      PETSTORE_LB_BIND: `127.0.0.1:${bind}`,
      PETSTORE_LB_SOCKET: socket,
      ...Object.fromEntries(apps.map((port, i) => [`PETSTORE_APP${i + 1}`, `127.0.0.1:${port}`]))
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (c) => (output += String(c)))
  child.stderr!.on("data", (c) => (output += String(c)))
  const ask = (command: string) =>
    new Promise<string>((resolve, reject) => {
      const connection = Net.createConnection(socket)
      let answer = ""
      connection.on("data", (c) => (answer += String(c)))
      connection.on("end", () => resolve(answer))
      connection.on("error", reject)
      connection.write(`${command}\n`)
    })
  /** Points server `name` at another port (an instance started again elsewhere), as a deploy tool does. */
  const move = async (name: string, port: number) => {
    const answer = await ask(`set server instances/${name} addr 127.0.0.1 port ${port}`)
    if (!/changed/i.test(answer)) throw new Error(`HAProxy did not move ${name}: ${answer}`)
  }
  /** Which servers (app1..app3) HAProxy holds UP now. */
  const up = async (): Promise<ReadonlyArray<string>> => {
    const csv = await ask("show stat")
    return csv.split("\n").map((l) => l.split(",")).filter((f) => f[0] === "instances" && f[17] === "UP").map((f) => f[1]!)
  }
  await pollUntil("HAProxy's admin socket", async () => (Fs.existsSync(socket) ? true : undefined), 200, 50)
  return { child, up, move, output: () => output }
}

interface Outcome {
  readonly what: string
  readonly status: number | "error"
  readonly detail?: string | undefined
}

/**
 * Twelve keep-alive clients through `base` until `running()` ends: reads, keyed creates, and one
 * client reading with the quota account. A create that got no answer is sent again with the same
 * key and body, as a client does (`retries` counts them); what it finally got is kept by name.
 */
const startClients = (base: string, key: string, quotaKey: string, running: () => boolean) => {
  const outcomes: Array<Outcome> = []
  const created = new Map<string, number>() // name → pet id acknowledged
  let retries = 0
  const create = (name: string, idempotencyKey: string) =>
    request(`${base}/v1/pets`, {
      method: "POST",
      key,
      headers: { "idempotency-key": idempotencyKey },
      body: JSON.stringify({ name, categoryId: 1 })
    })
  const client = async (n: number) => {
    for (let i = 0; running(); i++) {
      const kind = n === 0 ? "quota" : i % 2 === 0 ? "create" : "read"
      const idempotencyKey = randomUUID()
      const name = `drill ${idempotencyKey}`
      try {
        const reply = kind === "create"
          ? await create(name, idempotencyKey)
          : await request(`${base}/v1/pets?limit=5`, { key: kind === "quota" ? quotaKey : key })
        outcomes.push({ what: kind, status: reply.status, detail: reply.status >= 400 ? JSON.stringify(reply.body) : undefined })
        if (kind === "create" && reply.status === 201) created.set(name, reply.body.id)
      } catch (error) {
        outcomes.push({ what: kind, status: "error", detail: String((error as { cause?: unknown }).cause ?? error) })
        if (kind !== "create") continue
        for (let attempt = 0; attempt < 20; attempt++) {
          retries++
          const again = await create(name, idempotencyKey).catch(() => undefined)
          if (again?.status === 201) {
            created.set(name, again.body.id)
            break
          }
        }
      }
    }
  }
  const clients = Array.from({ length: 12 }, (_, n) => client(n))
  return { outcomes, created, retries: () => retries, done: () => Promise.all(clients) }
}

/** Every pet's name, how many pets have it. */
const petsByName = async (base: string, key: string) => {
  const counts = new Map<string, number>()
  let next: string | undefined = "/v1/pets?limit=100"
  while (next !== undefined) {
    const page = await request(`${base}${next}`, { key })
    for (const pet of page.body as Array<{ name: string }>) counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1)
    next = /^<([^>]+)>; rel="next"$/.exec(page.headers.get("link") ?? "")?.[1]
  }
  return counts
}

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
      const settings = {
        PETSTORE_DATABASE: await database.freshUrl(),
        PETSTORE_DATABASE_POOL_SIZE: "4",
        PETSTORE_REDIS_URL: redis.url,
        PETSTORE_REDIS_PREFIX: redis.freshPrefix(),
        PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
        PETSTORE_DRAIN_DELAY_MS: "2000",
        PETSTORE_ACCESS_LOG: "false"
      }
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
        const old = servers[i]!
        old.process.kill("SIGTERM")
        await exited(old.process)
        expect([old.process.exitCode, old.process.signalCode]).toEqual([0, null])
        // Started again on a port of its own (its old one may be taken meanwhile), and HAProxy told.
        servers[i] = await start(settings)
        await balancer.move(`app${i + 1}`, Number(new URL(servers[i]!.url).port))
        await pollUntil(`HAProxy to hold app${i + 1} up again`, async () => ((await balancer.up()).includes(`app${i + 1}`) ? true : undefined), 400, 50)
      }
      await pollUntil("the drill's 30 s", async () => (Date.now() - began >= DRILL_MS ? true : undefined), 700, 50)
      running = false
      await load.done()
      const failed = load.outcomes.filter((o) => o.status === "error" || (o.status >= 500) || (o.what !== "quota" && o.status >= 400))
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
