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
    // A key rotated already was rotated again, and refused.
    expect(report.answers["409 key_already_rotated"] ?? 0).toBeGreaterThan(0)
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

  // A time limit far too short for the sequences asked for: the run stops after some of them (at
  // least one: the first starts at once and is not cut; 100,000 cannot end within 2 s).
  const cutShort = { numRuns: 100_000, maxCommands: 3, seed: 3, timeLimitMs: 2_000 }

  it("a run stopped by its time limit before --min-runs sequences fails, saying so", async () => {
    const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, ...cutShort, minRuns: 99_999 })
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toBe(
      `stopped by the time limit (2 s) after ${report.runs} of 100000 sequences, fewer than the minimum of 99999: too few to trust a pass (raise the time limit or look at why the server is slow)`
    )
    expect(formatReport(report)).toContain("conformance: FAILED")
  }, 60_000)

  it("a run stopped early that passes says so plainly, in its first line; progress is told after each sequence", async () => {
    const told: Array<{ readonly sequences: number; readonly of: number; readonly requests: number }> = []
    const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, ...cutShort, progress: (state) => void told.push(state) })
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.runs).toBeGreaterThan(0)
    expect(report.stoppedEarly).toBe(`stopped by the time limit (2 s) after ${report.runs} of 100000 sequences`)
    expect(formatReport(report).split("\n")[0]).toBe(
      `conformance: passed, but STOPPED EARLY: ${report.stoppedEarly}; only what ran was checked (${report.runs} command sequences, ${report.requests} requests, seed 3, ${(report.durationMs / 1000).toFixed(1)} s)`
    )
    expect(told.map((state) => state.sequences)).toEqual(told.map((_, i) => i + 1))
    expect(told.length).toBeGreaterThanOrEqual(report.runs)
    expect(told.every((state) => state.of === 100_000)).toBe(true)
    expect(told.at(-1)!.requests).toBeLessThanOrEqual(report.requests)
  }, 60_000)

  it("a run stopped before its first sequence fails whatever the minimum", async () => {
    const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 10, seed: 5, timeLimitMs: 0 })
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(/^stopped by the time limit \(0 s\) after 0 of 10 sequences, fewer than the minimum of 1:/)
  }, 60_000)

  it("a run that completes has no such note, and a minimum above the runs is refused", async () => {
    const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 3, seed: 4, minRuns: 3 })
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.stoppedEarly).toBeUndefined()
    await expect(runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 3, minRuns: 4 })).rejects.toThrow(
      "the minimum of 4 sequences is more than the 3 to run"
    )
  }, 60_000)
})
