/**
 * The console's pieces that hold no DOM: the `Link` header's next cursor, the routes of paths, the
 * usage ranges' queries (whole buckets, within the read's limits) and the outcome series (they add
 * up to the total).
 */
import { describe, expect, it } from "vitest"
import { nextCursor } from "../src/links.js"
import { outcomeSeries } from "../src/outcomes.js"
import { accountPath, messagePath, parse } from "../src/routes.js"
import { usageQuery } from "../src/components/usageRange.js"

describe("nextCursor", () => {
  it("reads the cursor of rel=next, whatever else the header holds", () => {
    expect(nextCursor(null)).toBeUndefined()
    expect(nextCursor(`</admin/v1/accounts?limit=20&cursor=abc%3D%3D>; rel="next"`)).toBe("abc==")
    expect(nextCursor(`</x?cursor=p>; rel="prev", </x?cursor=n&limit=2>; rel="next"`)).toBe("n")
    expect(nextCursor(`</x?cursor=p>; rel="prev"`)).toBeUndefined()
  })
})

describe("routes", () => {
  it("names each page by its path, with or without a trailing slash", () => {
    expect(parse("/console", "")).toEqual({ page: "dashboard" })
    expect(parse("/console/", "")).toEqual({ page: "dashboard" })
    const accounts = parse("/console/accounts", "?q=rex&plan=pro")
    expect(accounts.page === "accounts" && accounts.query.get("q")).toBe("rex")
    expect(parse(accountPath("acc_1/x"), "")).toEqual({ page: "account", accountId: "acc_1/x" })
    expect(messagePath("msg_1")).toBe("/console/messages/msg_1")
    expect(parse(messagePath("msg_1"), "")).toEqual({ page: "message", messageId: "msg_1" })
    // Older links named the account too: still the same page.
    expect(parse("/console/messages/msg_1", "?account=acc_1")).toEqual({ page: "message", messageId: "msg_1" })
    expect(parse("/console/elsewhere", "")).toEqual({ page: "notFound", path: "/console/elsewhere" })
  })
})

describe("usageQuery", () => {
  const now = new Date("2026-11-29T12:34:56.789Z")
  const read = (query: string) => Object.fromEntries(new URLSearchParams(query))
  const hours = (q: Record<string, string>) => (Date.parse(q.to!) - Date.parse(q.from!)) / 3_600_000

  it("asks for the read's own default range for 24 hours", () => {
    expect(read(usageQuery("24h", now))).toEqual({ granularity: "hour", keys: "10" })
  })

  it("asks for whole buckets: 168 hours, 30 days, 13 months of days (at most 400)", () => {
    const week = read(usageQuery("7d", now))
    expect(week).toMatchObject({ granularity: "hour", to: "2026-11-29T13:00:00.000Z" })
    expect(hours(week)).toBe(168)
    const month = read(usageQuery("30d", now))
    expect(month).toMatchObject({ granularity: "day", to: "2026-11-30T00:00:00.000Z" })
    expect(hours(month)).toBe(30 * 24)
    const year = read(usageQuery("13mo", now))
    expect(year).toMatchObject({ granularity: "day", from: "2025-10-30T00:00:00.000Z", to: "2026-11-30T00:00:00.000Z" })
    expect(hours(year) / 24).toBeLessThanOrEqual(400)
  })
})

describe("outcomeSeries", () => {
  it("splits each bucket into outcomes that add up to its total", () => {
    const bucket = { start: "2026-11-29T00:00:00.000Z", total: 20, allowed: 12, rateLimited: 5, quotaExceeded: 2, banned: 1, clientErrors: 3, serverErrors: 1 }
    const series = outcomeSeries([bucket])
    expect(series.map((s) => s.label)).toEqual(["allowed", "4xx", "5xx", "rate limited", "quota", "banned"])
    expect(series.reduce((sum, s) => sum + s.values[0]!, 0)).toBe(bucket.total)
  })
})
