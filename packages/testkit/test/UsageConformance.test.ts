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
      // Read while the server's last request was not yet written, the extra one makes the account's
      // totals agree by chance; its key's, which the fault leaves alone, then do not. Either way the run
      // fails naming the account and both counts.
      expect(report.failure?.message).toMatch(
        /the usage of (account acc_\w+|key key_\w+ of account acc_\w+ \(byKey\)) is .*"allowed":\d+.*, but the answers (its keys got|it got) were/
      )
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a server whose byKey does not split the account's usage as its keys got it fails, naming the key", async () => {
    const server = await startServer({
      corrupt: (request, response) => {
        if (!/^\/admin\/v1\/accounts\/[^/]+\/usage/.test(request.url) || response.status !== 200 || response.body === undefined) return response
        const body = JSON.parse(response.body)
        if (body.byKey.length === 0) return response
        body.byKey[0].buckets[0].allowed++
        body.byKey[0].buckets[0].total++
        return { ...response, body: JSON.stringify(body) }
      }
    })
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 5, seed: 2817, usageWaitMs: 2_000 })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(/^the usage of key \w+ of account acc_\w+ \(byKey\) is .*, but the answers it got were/)
    } finally {
      await server.close()
    }
  }, 120_000)

  it("a server whose GET /v1/usage leaves out the 4xx answers fails, naming the account and both counts", async () => {
    const server = await startServer({
      corrupt: (request, response) => {
        if (!request.url.startsWith("/v1/usage") || response.status !== 200 || response.body === undefined) return response
        const body = JSON.parse(response.body)
        for (const bucket of body.buckets) bucket.clientErrors = 0
        return { ...response, body: JSON.stringify(body) }
      }
    })
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 5, seed: 2814, usageWaitMs: 2_000 })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(
        /^GET \/v1\/usage says account acc_\w+ used \{.*"clientErrors":0.*\}, but it used \{.*"clientErrors":[1-9]\d*.*\} \(the answers its keys got; after waiting 2000 ms/
      )
      expect(report.failure?.commands).toBe("(none: GET /v1/usage after every sequence)")
    } finally {
      await server.close()
    }
  }, 120_000)

  it("without an admin token, keys with a past: what GET /v1/usage added during the run equals the answers the keys got", async () => {
    const server = await startServer()
    try {
      const created = await fetch(`${server.url}/admin/v1/accounts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "enterprise", limits: { perMinute: 120, perDay: 5000 } })
      })
      const { id: accountId, key } = (await created.json()) as { id: string; key: string }
      // Usage from before the run, written before the run starts (the admin API's read counts nothing itself).
      for (let i = 0; i < 3; i++) await fetch(`${server.url}/v1/pets/999999`, { headers: { Authorization: `Bearer ${key}` } })
      for (;;) {
        const usage = await fetch(`${server.url}/admin/v1/accounts/${accountId}/usage`, { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } })
        const body = (await usage.json()) as { buckets: ReadonlyArray<{ total: number }> }
        if (body.buckets.reduce((n, b) => n + b.total, 0) === 3) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const report = await runConformance({ baseUrl: server.url, keys: [{ key, limits: { perMinute: 120, perDay: 5000 } }], numRuns: 5, seed: 2815 })
      expect(report.ok, formatReport(report)).toBe(true)
      expect(report.warnings.filter((w) => w.includes("usage"))).toEqual([])
    } finally {
      await server.close()
    }
  }, 120_000)

  it("without an admin token, a server that reports one request too many since the run began fails", async () => {
    // The first read (before the run) is left as it is: the run's own counts are one too many.
    let reads = 0
    const server = await startServer({
      corrupt: (request, response) => {
        if (!request.url.startsWith("/v1/usage") || response.status !== 200 || response.body === undefined) return response
        if (reads++ === 0) return response
        const body = JSON.parse(response.body)
        body.buckets[0].allowed++
        body.buckets[0].total++
        return { ...response, body: JSON.stringify(body) }
      }
    })
    try {
      const created = await fetch(`${server.url}/admin/v1/accounts`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "free" })
      })
      const key = ((await created.json()) as { key: string }).key
      const report = await runConformance({ baseUrl: server.url, keys: [{ key, limits: { perMinute: 60, perDay: 1000 } }], numRuns: 3, seed: 2816, usageWaitMs: 2_000 })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(/^GET \/v1\/usage says account KEY_1 used .* before the run, and the answers its keys got since/)
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
      expect(report.warnings).toContain("usage is not checked through GET /v1/usage: the server offers no usage (GET /v1/usage answers 404)")
    } finally {
      await server.close()
    }
  }, 120_000)
})
