/**
 * The readiness laws on the readiness the server composes from its configuration (`Main.services`:
 * the store's registration, the stores instrumented, the limiter on Redis when
 * `PETSTORE_REDIS_URL` is set), as `/readyz` reads it: PostgreSQL behind a TCP proxy the laws cut
 * and silence, and a Redis of the test's own, failing open and failing closed, stopped and silenced.
 */
import { describe, it } from "@effect/vitest"
import type { Readiness } from "@petstore/core"
import { readinessLaws } from "@petstore/testkit/laws"
import { ConfigProvider, Effect, type Layer } from "effect"
import * as TestDatabase from "../../postgres/test/support/TestDatabase.js"
import * as RedisProcess from "../../redis/test/support/RedisProcess.js"
import { ServerConfig } from "../src/Config.js"
import * as Main from "../src/Main.js"
import * as TcpProxy from "./support/TcpProxy.js"

const database = await TestDatabase.make()
const redisAvailable = RedisProcess.availableOrFail()

/** The services of a server configured by `env`, with the readiness they carry. */
const composed = <P>(env: Record<string, string>) =>
  Effect.map(
    Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env)),
    // `Main.services` promises the core services; the readiness ports come with them.
    (config) => Main.services(config) as unknown as Layer.Layer<P, unknown>
  )

/** A proxy on loopback to `url`'s host and port for the life of the scope, and `url` through it. */
const behindProxy = (url: string, defaultPort: number) =>
  Effect.gen(function*() {
    const direct = new URL(url)
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => TcpProxy.start(direct.hostname, Number(direct.port || defaultPort))),
      (proxy) => Effect.promise(proxy.close)
    )
    const through = new URL(direct)
    through.hostname = "127.0.0.1"
    through.port = String(proxy.port)
    return { proxy, url: through.toString(), where: through.host }
  })

if ("skip" in database) {
  describe.skip(`readiness of a server on PostgreSQL (${database.skip})`, () => it("skipped", () => {}))
} else {
  readinessLaws("postgres, as the server composes it", {
    port: "store",
    dependency: Effect.gen(function*() {
      const { proxy, url, where } = yield* behindProxy(yield* Effect.promise(() => database.freshUrl()), 5432)
      return {
        layer: yield* composed<Readiness.StoreReadiness>({ PETSTORE_DATABASE: url }),
        outage: (name: string) => ({
          begin: name === "cut" ? Effect.promise(proxy.cut) : Effect.sync(proxy.silence),
          end: Effect.promise(proxy.restore)
        }),
        secrets: [where, "postgres://"]
      }
    }),
    away: "down",
    outages: ["cut", "silent"]
  }, { numRuns: 2 })
}

if (!redisAvailable) {
  describe.skip("readiness of a server's rate limiter on Redis (redis-server is not installed)", () => it("skipped", () => {}))
} else {
  for (const failure of ["open", "closed"] as const) {
    readinessLaws(`redis failing ${failure}, as the server composes it`, {
      port: "rateLimiter",
      dependency: Effect.gen(function*() {
        const server = yield* Effect.acquireRelease(Effect.promise(RedisProcess.start), (server) => Effect.promise(server.stop))
        const { proxy, url, where } = yield* behindProxy(server.url, 6379)
        return {
          layer: yield* composed<Readiness.LimiterReadiness>({ PETSTORE_STORE: "memory", PETSTORE_REDIS_URL: url, PETSTORE_REDIS_FAILURE: failure }),
          outage: (name: string) =>
            name === "stopped"
              ? { begin: Effect.promise(server.stop), end: Effect.promise(server.start) }
              : { begin: Effect.sync(proxy.silence), end: Effect.promise(proxy.restore) },
          secrets: [where, "redis://"]
        }
      }),
      away: failure === "open" ? "degraded" : "down",
      outages: ["stopped", "silent"]
    }, { numRuns: 2 })
  }
}
