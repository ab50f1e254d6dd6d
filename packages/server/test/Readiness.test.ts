/**
 * `/healthz` and `/readyz` of a real server process (packages/server/dist/bin.js; `pnpm build`
 * first): both answer without a key on every store; `/readyz` answers 503 with an Error body that
 * names what is unreachable (never its URL) while PostgreSQL is cut off, and while Redis is away
 * with `PETSTORE_REDIS_FAILURE=closed` (with `open` the instance stays ready, reported degraded),
 * and 200 again once they are back, without a restart. With `PETSTORE_DRAIN_DELAY_MS`, SIGTERM
 * makes `/readyz` answer 503 while the server still serves, then it exits 0.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as RedisProcess from "../../redis/test/support/RedisProcess.js"
import { ADMIN_TOKEN, createAccount, get, request } from "./support/Http.js"
import { exited, pollUntil, type Server, type Settings, sqliteFile, start, stop } from "./support/ServerProcess.js"
import * as TcpProxy from "./support/TcpProxy.js"

const database = await TestDatabase.make()
const redisAvailable = RedisProcess.availableOrFail()

const withFolder = async <A>(body: (folder: string) => Promise<A>): Promise<A> => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-readiness-"))
  try {
    return await body(folder)
  } finally {
    Fs.rmSync(folder, { recursive: true, force: true })
  }
}

const withServer = async (settings: Settings, body: (server: Server) => Promise<void>) => {
  const server = await start(settings)
  try {
    await body(server)
  } finally {
    await stop(server)
  }
}

const readyz = (url: string) => request(`${url}/readyz`)

/** Asks `/readyz` until it answers `status` (its answer is shared for a second, so a change shows within one). */
const readyzBecomes = (url: string, status: number) =>
  pollUntil(`/readyz to answer ${status}`, async () => {
    const reply = await readyz(url)
    return reply.status === status ? reply : undefined
  }, 200, 50)

describe("health endpoints of the server process", () => {
  for (const [store, settings] of [
    ["memory", { PETSTORE_STORE: "memory" }],
    ["SQLite", undefined]
  ] as const) {
    it(`on the ${store} store, /healthz and /readyz answer 200 without a key; other methods 405`, () =>
      withFolder((folder) =>
        withServer({ ...(settings ?? sqliteFile(Path.join(folder, "petstore.db"))), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN }, async ({ url }) => {
          const health = await request(`${url}/healthz`)
          expect(health.status).toBe(200)
          expect(health.body).toEqual({ status: "ok" })
          const ready = await readyz(url)
          expect(ready.status).toBe(200)
          expect(ready.body).toEqual({ status: "ready", checks: { store: "up", rateLimiter: "up" } })
          for (const path of ["/healthz", "/readyz"]) {
            const refused = await request(`${url}${path}`, { method: "POST" })
            expect(refused.status).toBe(405)
            expect(refused.headers.get("allow")).toBe("GET, HEAD")
            expect(refused.body).toMatchObject({ code: "method_not_allowed", status: 405 })
          }
          // Outside /v1: the public API still needs a key.
          expect((await request(`${url}/v1/healthz`)).status).toBe(401)
        })), 60_000)
  }

  it("PETSTORE_DRAIN_DELAY_MS: on SIGTERM /readyz answers 503 while requests are still served, then the process exits 0", () =>
    withFolder((folder) =>
      withServer({ ...sqliteFile(Path.join(folder, "petstore.db")), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN, PETSTORE_DRAIN_DELAY_MS: "5000" }, async (server) => {
        const account = await createAccount(server.url)
        expect((await readyz(server.url)).status).toBe(200)
        server.process.kill("SIGTERM")
        const draining = await readyzBecomes(server.url, 503)
        expect(draining.body).toEqual({ code: "unavailable", message: "Not ready: the server is shutting down.", status: 503 })
        expect(draining.headers.get("retry-after")).toBe("1")
        expect((await get(server.url, "/v1/pets", account.key)).status).toBe(200)
        expect((await request(`${server.url}/healthz`)).status).toBe(200)
        await exited(server.process)
        expect(server.process.exitCode).toBe(0)
      })), 60_000)

  for (const value of ["-1", "300001", "soon"]) {
    it(`PETSTORE_DRAIN_DELAY_MS=${value} stops the start with a message naming it`, () =>
      withFolder(async (folder) => {
        const failure = await start({ ...sqliteFile(Path.join(folder, "petstore.db")), PETSTORE_DRAIN_DELAY_MS: value }).then(
          async (server) => {
            await stop(server)
            return "started"
          },
          (error: Error) => error.message
        )
        expect(failure).toContain("PETSTORE_DRAIN_DELAY_MS")
      }), 60_000)
  }
})

if ("skip" in database) {
  describe.skip(`readiness on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("readiness on PostgreSQL", () => {
    let proxy: TcpProxy.TcpProxy
    let server: Server
    let through: URL

    beforeAll(async () => {
      const direct = new URL(await database.freshUrl())
      proxy = await TcpProxy.start(direct.hostname, Number(direct.port || 5432))
      through = new URL(direct)
      through.hostname = "127.0.0.1"
      through.port = String(proxy.port)
      server = await start({ PETSTORE_DATABASE: through.toString(), PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN })
    }, 60_000)
    afterAll(async () => {
      await stop(server)
      await proxy.close()
    })

    it("/readyz answers 503 naming the store (not its URL) while PostgreSQL is cut off, 200 again once it is back", async () => {
      const ready = await readyz(server.url)
      expect(ready.status).toBe(200)
      expect(ready.body).toEqual({ status: "ready", checks: { store: "up", rateLimiter: "up" } })

      await proxy.cut()
      const down = await readyzBecomes(server.url, 503)
      expect(down.headers.get("content-type")).toBe("application/json")
      expect(down.headers.get("retry-after")).toBe("1")
      expect(down.body).toEqual({ code: "unavailable", message: "Not ready: the store (PostgreSQL) cannot be reached.", status: 503 })
      expect(JSON.stringify(down.body)).not.toContain(String(proxy.port))
      if (through.password !== "") expect(JSON.stringify(down.body)).not.toContain(through.password)
      // The process itself is alive: a load balancer's liveness check does not restart it.
      expect((await request(`${server.url}/healthz`)).status).toBe(200)

      await proxy.restore()
      const back = await readyzBecomes(server.url, 200)
      expect(back.body.checks).toEqual({ store: "up", rateLimiter: "up" })
      // The change is logged once each way, without the URL.
      const log = server.output()
      expect(log.match(/readiness: not ready: the store \(PostgreSQL\) cannot be reached/g)).toHaveLength(1)
      expect(log).toContain("readiness: the store and the rate limiter answer")
    }, 60_000)
  })
}

describe.skipIf(!redisAvailable)("readiness with the rate limiter on Redis (redis-server of the test's own)", () => {
  const withRedisServer = (failure: "open" | "closed", body: (url: string, redis: RedisProcess.RedisProcess) => Promise<void>) =>
    withFolder(async (folder) => {
      const redis = await RedisProcess.start()
      try {
        await withServer({
          ...sqliteFile(Path.join(folder, "petstore.db")),
          PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
          PETSTORE_REDIS_URL: redis.url,
          PETSTORE_REDIS_FAILURE: failure
        }, ({ url }) => body(url, redis))
      } finally {
        await redis.stop()
      }
    })

  it("PETSTORE_REDIS_FAILURE=closed: 503 naming the rate limiter while Redis is away, 200 again once it is back", () =>
    withRedisServer("closed", async (url, redis) => {
      expect((await readyz(url)).body).toEqual({ status: "ready", checks: { store: "up", rateLimiter: "up" } })
      await redis.stop()
      const down = await readyzBecomes(url, 503)
      expect(down.body).toEqual({ code: "unavailable", message: "Not ready: the rate limiter (Redis) cannot be reached.", status: 503 })
      expect(JSON.stringify(down.body)).not.toContain("redis://")
      await redis.start()
      await readyzBecomes(url, 200)
    }), 60_000)

  it("PETSTORE_REDIS_FAILURE=open: the instance stays ready while Redis is away (limits per instance), reported degraded", () =>
    withRedisServer("open", async (url, redis) => {
      await redis.stop()
      const degraded = await pollUntil("/readyz to report the limiter degraded", async () => {
        const reply = await readyz(url)
        expect(reply.status).toBe(200)
        return reply.body.checks.rateLimiter === "degraded" ? reply : undefined
      }, 200, 50)
      expect(degraded.body).toEqual({
        status: "ready",
        checks: { store: "up", rateLimiter: "degraded" },
        degraded: ["the rate limiter (Redis) cannot be reached; limits apply per instance meanwhile"]
      })
      await redis.start()
      await pollUntil("/readyz to report the limiter up", async () => {
        const reply = await readyz(url)
        return reply.body.checks.rateLimiter === "up" ? true : undefined
      }, 200, 50)
    }), 60_000)
})
