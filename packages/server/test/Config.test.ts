import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { describeError, ServerConfig } from "../src/Config.js"

const read = (env: Record<string, string>) =>
  Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env))

describe("ServerConfig", () => {
  it.effect("the ban grace is 250 ms unless PETSTORE_BAN_GRACE_MS says otherwise (0 to 1000)", () =>
    Effect.gen(function*() {
      expect((yield* read({})).banGraceMillis).toBe(250)
      expect((yield* read({ PETSTORE_BAN_GRACE_MS: "0" })).banGraceMillis).toBe(0)
      expect((yield* read({ PETSTORE_BAN_GRACE_MS: "1000" })).banGraceMillis).toBe(1000)
    }))

  it.effect("Idempotency-Key answers are kept 24 hours unless PETSTORE_IDEMPOTENCY_TTL says longer (seconds or with a unit)", () =>
    Effect.gen(function*() {
      const HOUR = 3_600_000
      expect((yield* read({})).idempotencyTtlMillis).toBe(24 * HOUR)
      expect((yield* read({ PETSTORE_IDEMPOTENCY_TTL: "86400" })).idempotencyTtlMillis).toBe(24 * HOUR)
      expect((yield* read({ PETSTORE_IDEMPOTENCY_TTL: "48h" })).idempotencyTtlMillis).toBe(48 * HOUR)
      expect((yield* read({ PETSTORE_IDEMPOTENCY_TTL: "7d" })).idempotencyTtlMillis).toBe(7 * 24 * HOUR)
      expect((yield* read({ PETSTORE_IDEMPOTENCY_TTL: "1440m" })).idempotencyTtlMillis).toBe(24 * HOUR)
      // An empty variable is an unset one (Effect 4's configuration): the default.
      expect((yield* read({ PETSTORE_IDEMPOTENCY_TTL: "" })).idempotencyTtlMillis).toBe(24 * HOUR)
      for (const value of ["86399", "23h", "1d1h", "-1", "forever"]) {
        const error = yield* Effect.flip(read({ PETSTORE_IDEMPOTENCY_TTL: value }))
        expect(describeError(error)).toContain("PETSTORE_IDEMPOTENCY_TTL")
      }
    }))

  it.effect("the console is on with 12-hour sessions unless PETSTORE_CONSOLE and PETSTORE_CONSOLE_SESSION_HOURS (0.01 to 720) say otherwise", () =>
    Effect.gen(function*() {
      expect((yield* read({})).console).toStrictEqual({ sessionHours: 12 })
      expect((yield* read({ PETSTORE_CONSOLE_SESSION_HOURS: "0.5" })).console).toStrictEqual({ sessionHours: 0.5 })
      expect((yield* read({ PETSTORE_CONSOLE_SESSION_HOURS: "720" })).console).toStrictEqual({ sessionHours: 720 })
      expect((yield* read({ PETSTORE_CONSOLE: "false" })).console).toBe(false)
      for (const value of ["0", "0.001", "721", "-1", "a day"]) {
        const error = yield* Effect.flip(read({ PETSTORE_CONSOLE_SESSION_HOURS: value }))
        expect(describeError(error)).toContain("PETSTORE_CONSOLE_SESSION_HOURS")
      }
      expect(describeError(yield* Effect.flip(read({ PETSTORE_CONSOLE: "maybe" })))).toContain("PETSTORE_CONSOLE")
    }))

  for (const value of ["-1", "1001", "0.5", "soon"]) {
    it.effect(`PETSTORE_BAN_GRACE_MS=${value} is refused with a message that names it`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(read({ PETSTORE_BAN_GRACE_MS: value }))
        expect(String(error)).toContain("PETSTORE_BAN_GRACE_MS")
      }))
  }

  it.effect("on PostgreSQL the database timeout is the adapter's default unless PETSTORE_DATABASE_TIMEOUT_MS says (50 to 60000)", () =>
    Effect.gen(function*() {
      const url = "postgres://u@db.internal/petstore"
      expect((yield* read({ PETSTORE_DATABASE: url })).store).not.toHaveProperty("timeoutMillis")
      expect((yield* read({ PETSTORE_DATABASE: url, PETSTORE_DATABASE_TIMEOUT_MS: "300" })).store).toMatchObject({ timeoutMillis: 300 })
      for (const value of ["49", "60001", "fast"]) {
        const error = yield* Effect.flip(read({ PETSTORE_DATABASE: url, PETSTORE_DATABASE_TIMEOUT_MS: value }))
        expect(String(error)).toContain("PETSTORE_DATABASE_TIMEOUT_MS")
      }
    }))

  it.effect("logs: text or JSON decided by the terminal unless PETSTORE_LOG_FORMAT says, level info, access log on; tracing off", () =>
    Effect.gen(function*() {
      const config = yield* read({})
      expect(config.log).toEqual({ format: undefined, level: "info", accessLog: true })
      expect(config.tracing).toBe("off")
      const set = yield* read({ PETSTORE_LOG_FORMAT: "json", PETSTORE_LOG_LEVEL: "none", PETSTORE_ACCESS_LOG: "false", PETSTORE_TRACING: "otlp" })
      expect(set.log).toEqual({ format: "json", level: "none", accessLog: false })
      expect(set.tracing).toBe("otlp")
    }))

  for (
    const [name, value] of [
      ["PETSTORE_LOG_FORMAT", "xml"],
      ["PETSTORE_LOG_LEVEL", "loud"],
      ["PETSTORE_ACCESS_LOG", "sometimes"],
      ["PETSTORE_TRACING", "jaeger"]
    ] as const
  ) {
    it.effect(`${name}=${value} is refused with a message that names it`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(read({ [name]: value }))
        expect(describeError(error)).toContain(name)
      }))
  }
  it.effect("Redis behind Sentinel: PETSTORE_REDIS_SENTINELS lists host:port, PETSTORE_REDIS_SENTINEL_NAME defaults to mymaster", () =>
    Effect.gen(function*() {
      const one = yield* read({ PETSTORE_REDIS_SENTINELS: "10.0.0.1:26379" })
      expect(one.redis).toMatchObject({ sentinel: { nodes: [{ host: "10.0.0.1", port: 26379 }], name: "mymaster" }, failure: "open" })
      expect(one.redis?.url).toBeUndefined()
      const three = yield* read({
        PETSTORE_REDIS_SENTINELS: "sentinel-a.internal:26379, sentinel-b.internal:26380,[::1]:26381",
        PETSTORE_REDIS_SENTINEL_NAME: "limits",
        PETSTORE_REDIS_FAILURE: "closed"
      })
      expect(three.redis).toMatchObject({
        sentinel: {
          nodes: [{ host: "sentinel-a.internal", port: 26379 }, { host: "sentinel-b.internal", port: 26380 }, { host: "::1", port: 26381 }],
          name: "limits"
        },
        failure: "closed"
      })
      expect(one.redis?.timeoutMillis).toBe(250)
      expect((yield* read({ PETSTORE_REDIS_URL: "redis://127.0.0.1:6379", PETSTORE_REDIS_TIMEOUT_MS: "1000" })).redis?.timeoutMillis).toBe(1000)
      // Neither set: no Redis at all.
      expect((yield* read({})).redis).toBeUndefined()
    }))

  for (
    const [env, names] of [
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1" }, "PETSTORE_REDIS_SENTINELS"],
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1:0" }, "PETSTORE_REDIS_SENTINELS"],
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1:26379," }, "PETSTORE_REDIS_SENTINELS"],
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1:26379", PETSTORE_REDIS_SENTINEL_NAME: "my master" }, "PETSTORE_REDIS_SENTINEL_NAME"],
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1:26379", PETSTORE_REDIS_URL: "redis://10.0.0.2:6379" }, "PETSTORE_REDIS_URL and PETSTORE_REDIS_SENTINELS"],
      [{ PETSTORE_REDIS_SENTINELS: "10.0.0.1:26379", PETSTORE_REDIS_CLUSTER: "true" }, "PETSTORE_REDIS_CLUSTER=true and PETSTORE_REDIS_SENTINELS"],
      [{ PETSTORE_REDIS_URL: "redis://127.0.0.1:6379", PETSTORE_REDIS_TIMEOUT_MS: "5" }, "PETSTORE_REDIS_TIMEOUT_MS"],
      [{ PETSTORE_REDIS_URL: "redis://127.0.0.1:6379", PETSTORE_REDIS_TIMEOUT_MS: "soon" }, "PETSTORE_REDIS_TIMEOUT_MS"]
    ] as const
  ) {
    it.effect(`${JSON.stringify(env)} is refused with a message that names ${names}`, () =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(read(env))
        expect(describeError(error)).toContain(names)
      }))
  }
})
