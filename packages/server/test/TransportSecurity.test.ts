/**
 * The start-up warning for PostgreSQL or Redis reached without TLS on another host: decided from the
 * URLs alone (the pure functions, table-driven), and said by `petstore serve` before it connects
 * (the real process, pointed at 0.0.0.0, which Linux connects to this machine: nothing leaves it).
 */
import { describe, expect, it } from "@effect/vitest"
import { isLoopback, postgresWarning, redisWarning, sentinelWarning, warnings } from "../src/TransportSecurity.js"
import { config } from "./support/InProcessServer.js"
import { cli } from "./support/ServerProcess.js"

describe("isLoopback", () => {
  it.each([
    ["localhost", true],
    ["LOCALHOST", true],
    ["db.localhost", true],
    ["127.0.0.1", true],
    ["127.8.9.10", true],
    ["[::1]", true],
    ["::1", true],
    ["[::ffff:127.0.0.1]", true],
    ["0.0.0.0", false],
    ["10.0.0.5", false],
    ["[::ffff:10.0.0.5]", false],
    ["[2001:db8::1]", false],
    ["db.internal", false],
    ["localhost.example.com", false],
    ["128.0.0.1", false]
  ])("%s → %s", (host, loopback) => expect(isLoopback(host)).toBe(loopback))
})

describe("postgresWarning", () => {
  const none = {}
  it.each([
    ["postgres://u:secret@db.internal/petstore", true],
    ["postgres://u:secret@db.internal/petstore?sslmode=disable", true],
    ["postgresql://u@10.1.2.3:5433/petstore?application_name=x", true],
    ["postgres://u@[2001:db8::1]/petstore", true],
    ["postgres://u@db.internal/petstore?ssl=0", true],
    ["postgres://u@localhost/petstore?host=db.internal", true],
    ["postgres://u:secret@db.internal/petstore?sslmode=verify-full", false],
    ["postgres://u:secret@db.internal/petstore?sslmode=require", false],
    ["postgres://u:secret@db.internal/petstore?sslmode=prefer", false],
    ["postgres://u:secret@db.internal/petstore?sslmode=no-verify", false],
    ["postgres://u@db.internal/petstore?ssl=true", false],
    ["postgres://u@db.internal/petstore?sslrootcert=/etc/ca.pem", false],
    ["postgres://u@db.internal/petstore?sslnegotiation=direct", false],
    ["postgres://u:secret@127.0.0.1:5432/petstore", false],
    ["postgres://u:secret@localhost/petstore?sslmode=disable", false],
    ["postgres://u@[::1]/petstore", false],
    ["postgres://u@db.internal/petstore?host=/var/run/postgresql", false]
  ])("%s → warns: %s", (url, warns) => {
    const warning = postgresWarning(url, none)
    expect(warning !== undefined).toBe(warns)
    if (warning !== undefined) {
      expect(warning).toMatch(/^PETSTORE_DATABASE connects to PostgreSQL on \S+ without TLS/)
      expect(warning).not.toContain("secret")
    }
  })

  it("reads PGSSLMODE when the URL says nothing of TLS, as node-postgres does", () => {
    const url = "postgres://u@db.internal/petstore"
    expect(postgresWarning(url, { PGSSLMODE: "verify-full" })).toBeUndefined()
    expect(postgresWarning(url, { PGSSLMODE: "require" })).toBeUndefined()
    expect(postgresWarning(url, { PGSSLMODE: "disable" })).toBeDefined()
    expect(postgresWarning(`${url}?sslmode=disable`, { PGSSLMODE: "verify-full" })).toBeDefined()
  })
})

describe("redisWarning", () => {
  it.each([
    ["redis://cache.internal:6379", true],
    ["redis://user:secret@10.0.0.7", true],
    ["redis://[2001:db8::7]:6379", true],
    ["rediss://user:secret@cache.internal:6380", false],
    ["redis://127.0.0.1:6379", false],
    ["redis://localhost", false],
    ["redis://[::1]:6379", false]
  ])("%s → warns: %s", (url, warns) => {
    const warning = redisWarning(url)
    expect(warning !== undefined).toBe(warns)
    if (warning !== undefined) {
      expect(warning).toMatch(/^PETSTORE_REDIS_URL connects to Redis on \S+ without TLS \(redis:\/\/\)/)
      expect(warning).not.toContain("secret")
    }
  })
})

describe("sentinelWarning", () => {
  it("names the sentinels on another machine (reached in clear), none when all are on loopback", () => {
    const node = (host: string) => ({ host, port: 26379 })
    expect(sentinelWarning({ nodes: [node("127.0.0.1"), node("::1"), node("localhost")], name: "mymaster" })).toBeUndefined()
    const warning = sentinelWarning({ nodes: [node("127.0.0.1"), node("sentinel-b.internal"), node("10.0.0.3")], name: "mymaster" })
    expect(warning).toMatch(/^PETSTORE_REDIS_SENTINELS names sentinels on sentinel-b\.internal, 10\.0\.0\.3: .* without TLS/)
  })
})

describe("the configuration's warnings", () => {
  it("come from the variables as read at start (PETSTORE_DATABASE and PETSTORE_REDIS_URL), none for a local store", async () => {
    const remote = await config({
      PETSTORE_STORE: "sqlite",
      PETSTORE_DATABASE: "postgres://petstore:hunter2@db.internal/petstore",
      PETSTORE_REDIS_URL: "redis://:hunter2@cache.internal"
    })
    expect(warnings(remote, {})).toEqual([expect.stringMatching(/^PETSTORE_DATABASE /), expect.stringMatching(/^PETSTORE_REDIS_URL /)])
    expect(warnings(await config({ PETSTORE_STORE: "sqlite", PETSTORE_DATABASE: "./data/petstore.db" }), {})).toEqual([])
    expect(warnings(await config({ PETSTORE_STORE: "sqlite", PETSTORE_REDIS_SENTINELS: "sentinel-a.internal:26379" }), {}))
      .toEqual([expect.stringMatching(/^PETSTORE_REDIS_SENTINELS /)])
    // The memory store takes no database: one named beside it is refused, so nothing connects there.
    await expect(config({ PETSTORE_DATABASE: "postgres://u@db.internal/petstore" })).rejects.toThrow(/PETSTORE_STORE=memory keeps nothing on disk/)
  })

  it("petstore serve says them before connecting, without the password", async () => {
    const run = (host: string) =>
      cli({
        PETSTORE_ADMIN_TOKEN: "transport-security-test-token",
        // Port 1: nothing listens, so the start ends at the first connection (refused, on this machine).
        PETSTORE_DATABASE: `postgres://petstore:hunter2@${host}:1/petstore`,
        PETSTORE_REDIS_URL: `redis://:hunter2@${host}:1`
      }, ["serve"])
    const remote = await run("0.0.0.0")
    expect(remote.code, remote.stderr).toBe(1)
    const messages = remote.stdout.split("\n").filter((line) => line.length > 0).map((line) => JSON.parse(line) as { level: number; msg: string })
    // pino's number for warnings: 40.
    expect(messages.filter((line) => line.level === 40).map((line) => line.msg)).toEqual([
      expect.stringMatching(/^PETSTORE_DATABASE connects to PostgreSQL on 0\.0\.0\.0 without TLS/),
      expect.stringMatching(/^PETSTORE_REDIS_URL connects to Redis on 0\.0\.0\.0 without TLS/)
    ])
    expect(remote.stdout + remote.stderr).not.toContain("hunter2")
    const local = await run("127.0.0.1")
    expect(local.code, local.stderr).toBe(1)
    expect(local.stdout).not.toMatch(/without TLS/)
  }, 60_000)
})
