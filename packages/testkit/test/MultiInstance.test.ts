/**
 * Several instances of one deployment (`--base-url` more than once): requests go to each in turn,
 * so a burst is split over the instances and a pet created on one is read back on another. Two
 * in-process instances sharing their stores and limiter pass; instances that each limit on their
 * own, or one that reads stale pets, fail.
 */
import { RateLimiter } from "@petstore/core"
import { Effect } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, type ServerVariant, startInstances } from "./support/InProcessServer.js"
import { errorResponse } from "./support/PlantedFaults.js"

/** Admits what the shared limiter refuses as key_banned (a ban kept in one instance's memory). */
const ignoringBans = (real: RateLimiter.RateLimiter["Service"]): RateLimiter.RateLimiter["Service"] => ({
  ...real,
  admit: (subject) =>
    Effect.map(real.admit(subject), (decision) => (decision.verdict === "key_banned" ? { ...decision, verdict: "allowed" as const, retryAfterMillis: 0 } : decision))
})

/** Instance 1 answers 404 for the pet created last on any instance: a stale read across instances. */
const staleSecondInstance = (): NonNullable<ServerVariant["corruptInstance"]> => {
  let latest: number | undefined
  return (index) => (req, res) => {
    if (req.method === "POST" && req.url === "/v1/pets" && res.status === 201) latest = (JSON.parse(res.body!) as { id: number }).id
    return index === 1 && req.method === "GET" && req.url === `/v1/pets/${latest}` && res.status === 200 ? errorResponse(res, 404, "not_found") : res
  }
}

/** Instance 1 answers a replay of a keyed create as if it had created another pet (a key not shared across instances). */
const keyIgnoredOnSecondInstance = (): NonNullable<ServerVariant["corruptInstance"]> => (index) => (req, res) => {
  if (index !== 1 || req.method !== "POST" || res.status !== 201 || res.headers["Idempotent-Replayed"] !== "true") return res
  const { "Idempotent-Replayed": _, ...headers } = res.headers
  const pet = JSON.parse(res.body!) as { id: number }
  const id = pet.id + 1_000_000
  return { ...res, headers: { ...headers, Location: `/v1/pets/${id}` }, body: JSON.stringify({ ...pet, id }) }
}

const run = async (variant: ServerVariant, numRuns?: number) => {
  const instances = await startInstances(2, variant)
  try {
    return await runConformance({ baseUrl: instances.map((i) => i.url), adminToken: ADMIN_TOKEN, seed: 42, numRuns })
  } finally {
    for (const instance of instances) await instance.close()
  }
}

describe("several instances", () => {
  it("two instances sharing their stores and limiter conform, the requests spread over both", async () => {
    const report = await run({}, 100)
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.answers["429 rate_limited"] ?? 0).toBeGreaterThan(0)
  }, 60_000)

  it("instances that each keep their own limits fail: a burst split over them admits more than the plan", async () => {
    const report = await run({ limiter: () => RateLimiter.makeMemory(RateLimiter.DEFAULT_OPTIONS) })
    expect(report.ok, formatReport(report)).toBe(false)
    expect(report.failure!.message).toMatch(/bucket must be empty|must have a token|requests left|X-RateLimit-Remaining|Retry-After/)
    expect(report.failure!.replay).toMatch(/--base-url http:\/\/\S+ --base-url http:\/\/\S+ /)
  }, 60_000)

  it("an instance that lets a banned key through fails: a ban holds on every instance", async () => {
    const report = await run({ limiter: (real, instance) => (instance === 1 ? ignoringBans(real) : real) })
    expect(report.ok, formatReport(report)).toBe(false)
    expect(report.failure!.message).toMatch(/is banned, but the request was admitted|admitted \(20[01]\) although account .* bucket must be empty/)
  }, 60_000)

  it("an instance that does not honour an Idempotency-Key another created under fails: a retry must replay the first answer", async () => {
    const report = await run({ corruptInstance: keyIgnoredOnSecondInstance() })
    expect(report.ok, formatReport(report)).toBe(false)
    expect(report.failure!.message).toMatch(/Idempotent-Replayed|an earlier answer with this key gave pet|different bodies|exactly one may/)
  }, 60_000)

  it("an instance that does not see the pet just created on the other fails read-your-writes", async () => {
    const report = await run({ corruptInstance: staleSecondInstance() })
    expect(report.ok, formatReport(report)).toBe(false)
    expect(report.failure!.message).toMatch(/read-your-writes: GET \/v1\/pets\/\d+ → 404, right after the 201/)
  }, 60_000)
})
