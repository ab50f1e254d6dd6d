/**
 * The seeded raw-socket fuzzer against the project's server in this process: a few thousand
 * requests, every answer checked by the oracle, no failure allowed. The run must also have reached
 * every input class and the answers that only hostile input gets (413, 417, 431, invalid_json), so
 * that a pass says something. `pnpm fuzz -- --requests 100000` is the long run of the same thing.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Generator from "../src/fuzz/Generator.js"
import { formatFuzzReport, runFuzz } from "../src/index.js"
import { ADMIN_TOKEN, type RunningServer, startServer } from "./support/InProcessServer.js"

describe("the raw-socket fuzzer", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("5,000 seeded raw requests: no 5xx, an Error body on every error, rate-limit headers where due, every owed answer in order, no reset or hang; progress told as connections end", async () => {
    const told: Array<{ readonly requests: number; readonly of: number; readonly failures: number }> = []
    const report = await runFuzz({
      progress: (state) => void told.push(state),
      baseUrl: server.url,
      adminToken: ADMIN_TOKEN,
      requests: 5_000,
      seed: 20260101,
      connections: 4,
      deadlineMs: 5_000,
      shrinkTimeMs: 5_000
    })
    expect(report.ok, formatFuzzReport(report)).toBe(true)
    expect(report.answered).toBe(report.owed)
    // Progress (what petstore-fuzz prints on stderr): counts that only grow, up to every request.
    expect(told.length).toBeGreaterThan(1)
    expect(told.every((t, i) => t.of === 5_000 && t.failures === 0 && (i === 0 || t.requests >= told[i - 1]!.requests))).toBe(true)
    expect(told.at(-1)!.requests).toBeGreaterThanOrEqual(5_000)
    for (const kind of ["valid", "json", "utf-8", "surrogates", "nesting", "numbers", "target", "header shape", "method", "version", "garbage", "oversize", "admin"]) {
      expect(report.inputs[kind] ?? 0, kind).toBeGreaterThan(0)
    }
    for (const status of ["201", "400 invalid_json", "400 invalid_request", "413 payload_too_large", "417 expectation_failed", "431 headers_too_large"]) {
      expect(report.statuses[status] ?? 0, status).toBeGreaterThan(0)
    }
  }, 60_000)

  it("generates the same connection from the same seed and index, and another from another", () => {
    const arbitrary = Generator.connection({ host: "127.0.0.1:1", key: "psk_test_00000000000000000000000000000000", prefix: "/v1" })
    const bytes = (seed: number, index: number) => Generator.script(arbitrary, seed, index).requests.map((r) => Buffer.from(r.bytes).toString("latin1"))
    expect(bytes(7, 3)).toStrictEqual(bytes(7, 3))
    expect(bytes(7, 3)).not.toStrictEqual(bytes(7, 4))
    expect(bytes(7, 3)).not.toStrictEqual(bytes(8, 3))
  })
})
