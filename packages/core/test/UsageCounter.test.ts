import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import { type LimitDecision, UsageCounter, UsageStore } from "@petstore/core"

const verdict = fc.constantFrom<LimitDecision.Verdict>("allowed", "rate_limited", "daily_quota_exceeded", "key_banned")
const status = fc.constantFrom(200, 201, 204, 400, 404, 413, 500, 503)
const request = fc.record({
  account: fc.constantFrom("acc_a", "acc_b"),
  key: fc.constantFrom("1", "2", "3"),
  verdict,
  status,
  at: fc.integer({ min: 1_700_000_000_000, max: 1_700_000_000_000 + 5 * UsageStore.HOUR_MILLIS })
})

/** The model: counts per account, key and hour, straight from the requests. */
const model = (requests: ReadonlyArray<typeof request extends fc.Arbitrary<infer A> ? A : never>) => {
  const out = new Map<string, UsageStore.Counts>()
  for (const r of requests) {
    const id = `${r.account}|${r.account}_${r.key}|${UsageStore.bucketStart("hour", r.at)}`
    const c = { ...(out.get(id) ?? UsageStore.zero) }
    const field = { allowed: "allowed", rate_limited: "rateLimited", daily_quota_exceeded: "quotaExceeded", key_banned: "banned" } as const
    c[field[r.verdict]]++
    if (r.verdict === "allowed" && r.status >= 500) c.serverErrors++
    else if (r.verdict === "allowed" && r.status >= 400) c.clientErrors++
    out.set(id, c)
  }
  return out
}

const rowsAsMap = (rows: ReadonlyArray<UsageStore.UsageRow>) => {
  const out = new Map<string, UsageStore.Counts>()
  for (const r of rows) {
    const id = `${r.accountId}|${r.keyId}|${r.hour}`
    out.set(id, UsageStore.add(out.get(id) ?? UsageStore.zero, r.counts))
  }
  return out
}

describe("UsageCounter", () => {
  it("drained rows hold exactly the requests recorded, per account, key and hour, whatever the order of their times and the drains between them", () =>
    fc.assert(
      fc.property(fc.array(request, { maxLength: 200 }), fc.array(fc.nat(200), { maxLength: 5 }), (requests, drainsAt) => {
        const counter = UsageCounter.make()
        const drained: Array<UsageStore.UsageRow> = []
        requests.forEach((r, i) => {
          if (drainsAt.includes(i)) drained.push(...counter.drain())
          counter.record(r.account, `${r.account}_${r.key}`, r.verdict, r.status, r.at)
        })
        drained.push(...counter.drain())
        expect(rowsAsMap(drained)).toStrictEqual(model(requests))
        // Nothing is handed over twice.
        expect(counter.drain()).toStrictEqual([])
      })
    ))

  it("one drain holds one row per key and hour", () =>
    fc.assert(
      fc.property(fc.array(request, { maxLength: 200 }), (requests) => {
        const counter = UsageCounter.make()
        for (const r of requests) counter.record(r.account, `${r.account}_${r.key}`, r.verdict, r.status, r.at)
        const rows = counter.drain()
        expect(new Set(rows.map((r) => `${r.keyId}|${r.hour}`)).size).toBe(rows.length)
      })
    ))

  it("a request at 23:59:59.999 counts in that hour, one at 00:00:00.000 in the next", () => {
    const counter = UsageCounter.make()
    const midnight = Date.UTC(2026, 10, 27)
    counter.record("acc_a", "key_1", "allowed", 200, midnight - 1)
    counter.record("acc_a", "key_1", "rate_limited", 429, midnight)
    const rows = [...counter.drain()].sort((a, b) => a.hour - b.hour)
    expect(rows.map((r) => [r.hour, r.counts.allowed, r.counts.rateLimited])).toStrictEqual([
      [midnight - UsageStore.HOUR_MILLIS, 1, 0],
      [midnight, 0, 1]
    ])
  })

  it("errors are counted among the allowed only: a refused request's 429 is not a client error", () => {
    const counter = UsageCounter.make()
    counter.record("acc_a", "key_1", "key_banned", 429, 0)
    counter.record("acc_a", "key_1", "allowed", 404, 0)
    counter.record("acc_a", "key_1", "allowed", 503, 0)
    expect(counter.drain()[0]!.counts).toStrictEqual({
      allowed: 2,
      rateLimited: 0,
      quotaExceeded: 0,
      banned: 1,
      clientErrors: 1,
      serverErrors: 1
    })
  })
})
