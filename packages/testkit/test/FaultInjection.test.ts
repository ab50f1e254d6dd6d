/**
 * The conformance suite must catch broken servers: each planted fault (test/support/PlantedFaults.ts)
 * is the project's server with one deliberate fault, and the default run must fail on it, shrink the
 * failure and print it as curl commands and a command line that replays it.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, startServer } from "./support/InProcessServer.js"
import { PLANTED_FAULTS } from "./support/PlantedFaults.js"

describe("fault injection: the conformance suite fails on each broken variant", () => {
  for (const { caught, name, variant } of PLANTED_FAULTS) {
    it(name, async () => {
      const server = await startServer(variant)
      try {
        // The default run (600 sequences, 40 commands at most), with a fixed seed.
        const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, seed: 42 })
        const text = formatReport(report)
        expect(report.ok, `the suite passed a broken server: ${text}`).toBe(false)
        expect(report.failure!.message).toMatch(caught)
        // Shrunk and printed: the failing requests as curl commands.
        expect(report.failure!.curl).toContain("curl -sS")
        // And a command line that replays it.
        expect(report.failure!.replay).toMatch(/^petstore-conformance --base-url \S+ --admin-token "\$ADMIN_TOKEN" --seed 42/)
        expect(text).toContain(report.failure!.replay)
        console.log(`--- ${name} (${(report.durationMs / 1000).toFixed(1)} s)\n${text.split("\n").slice(0, 6).join("\n")}\n${report.failure!.replay}`)
      } finally {
        await server.close()
      }
    }, 60_000)
  }
})
