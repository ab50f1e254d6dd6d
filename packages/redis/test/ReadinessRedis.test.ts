/**
 * The rate limiter's readiness on Redis under the readiness laws, as the server builds it
 * (`layer`: the limiter and its readiness on one connection), on a Redis of the test's own behind a
 * TCP proxy: the laws stop the server and start it again, and silence the proxy (nothing answers)
 * and restore it. Failing open, the instance serves meanwhile (degraded); failing closed, it is down.
 */
import { describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Redis from "@petstore/redis"
import { readinessLaws } from "@petstore/testkit/laws"
import * as TcpProxy from "../../server/test/support/TcpProxy.js"
import * as RedisProcess from "./support/RedisProcess.js"

/** A Redis of its own behind a proxy, for the life of the scope, with the limiter's readiness on it. */
const dependency = (failure: "open" | "closed") =>
  Effect.gen(function*() {
    const server = yield* Effect.acquireRelease(Effect.promise(RedisProcess.start), (server) => Effect.promise(server.stop))
    const direct = new URL(server.url)
    const proxy = yield* Effect.acquireRelease(
      Effect.promise(() => TcpProxy.start(direct.hostname, Number(direct.port))),
      (proxy) => Effect.promise(proxy.close)
    )
    const where = `127.0.0.1:${proxy.port}`
    return {
      layer: Redis.layer({ url: `redis://${where}`, failure }),
      outage: (name: string) =>
        name === "stopped"
          ? { begin: Effect.promise(server.stop), end: Effect.promise(server.start) }
          : { begin: Effect.sync(proxy.silence), end: Effect.promise(proxy.restore) },
      secrets: [where, "redis://"]
    }
  })

if (!RedisProcess.availableOrFail()) {
  describe.skip("readiness on Redis (redis-server is not installed)", () => it("skipped", () => {}))
} else {
  readinessLaws("redis, failing open", {
    port: "rateLimiter",
    dependency: dependency("open"),
    away: "degraded",
    outages: ["stopped", "silent"]
  }, { numRuns: 3 })
  readinessLaws("redis, failing closed", {
    port: "rateLimiter",
    dependency: dependency("closed"),
    away: "down",
    outages: ["stopped", "silent"]
  }, { numRuns: 3 })
}
