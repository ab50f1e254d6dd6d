import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, type RunningServer, startServer } from "./support/InProcessServer.js"

describe("conformance suite against the project's server", () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server.close())

  it("passes with an admin token: accounts, keys, pets, listings, messages, limits and bans all conform", async () => {
    const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 60, seed: 20260101 })
    expect(report.ok, formatReport(report)).toBe(true)
    // The run reached the rate limits and bans, not only the happy paths.
    expect(report.answers["429 rate_limited"] ?? 0).toBeGreaterThan(0)
    expect(report.answers["401 unauthorized"] ?? 0).toBeGreaterThan(0)
    expect(report.answers["201"] ?? 0).toBeGreaterThan(0)
  }, 120_000)

  it("passes with keys given by hand (no admin API), waiting whenever it is told to", async () => {
    const created = await fetch(`${server.url}/admin/v1/accounts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 120, perDay: 5000 } })
    })
    const other = await fetch(`${server.url}/admin/v1/accounts`, {
      method: "POST",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify({ plan: "free" })
    })
    const keys = [
      { key: ((await created.json()) as { key: string }).key, limits: { perMinute: 120, perDay: 5000 } },
      { key: ((await other.json()) as { key: string }).key, limits: { perMinute: 60, perDay: 1000 } }
    ]
    const report = await runConformance({ baseUrl: server.url, keys, numRuns: 25, seed: 7 })
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.answers["200"] ?? 0).toBeGreaterThan(0)
  }, 120_000)
})
