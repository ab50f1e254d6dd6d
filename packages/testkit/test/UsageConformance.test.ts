import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, startServer } from "./support/InProcessServer.js"

describe("conformance: usage at the end of a run", () => {
  it("a server whose usage equals the answers its accounts got passes, and the check ran", async () => {
    const server = await startServer()
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 15, seed: 2811 })
      expect(report.ok, formatReport(report)).toBe(true)
      expect(report.warnings.filter((w) => w.includes("usage"))).toEqual([])
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a server that reports one request too many fails, naming the account and both counts", async () => {
    const server = await startServer({
      corrupt: (request, response) => {
        if (!/^\/admin\/v1\/accounts\/[^/]+\/usage/.test(request.url) || response.status !== 200 || response.body === undefined) return response
        const body = JSON.parse(response.body)
        body.buckets[0].allowed++
        body.buckets[0].total++
        return { ...response, body: JSON.stringify(body) }
      }
    })
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 5, seed: 2812, usageWaitMs: 2_000 })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(/the usage of account acc_\w+ is .*"allowed":\d+.*, but the answers its keys got were/)
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a server that counts no usage is not checked, and says so as a warning", async () => {
    const server = await startServer({ usage: false })
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 3, seed: 2813 })
      expect(report.ok, formatReport(report)).toBe(true)
      expect(report.warnings.some((w) => w.startsWith("usage is not checked: the server offers no usage"))).toBe(true)
    } finally {
      await server.close()
    }
  }, 120_000)
})
