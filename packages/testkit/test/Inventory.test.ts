/**
 * The inventory after every run: the whole listing and each status filter hold every pet the server
 * acknowledged, once, in id order, and nothing it never acknowledged. Faults planted where only the
 * inventory looks (its own `GET /v1/pets?limit=100`) must fail the run with the inventory's message.
 */
import { describe, expect, it } from "@effect/vitest"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, type ServerVariant, startServer } from "./support/InProcessServer.js"
import { ghostPet, inventoryDropsNewest } from "./support/PlantedFaults.js"

const run = async (variant: ServerVariant) => {
  const server = await startServer(variant)
  try {
    return await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 30, seed: 3 })
  } finally {
    await server.close()
  }
}

describe("the inventory after the run", () => {
  it("fails on a listed pet the server never acknowledged creating", async () => {
    const report = await run({ corrupt: ghostPet(true) })
    expect(report.ok, formatReport(report)).toBe(false)
    expect(report.failure!.message).toMatch(/^the inventory after the run \(the whole listing\).*pet 9000000000000 is listed, but the server never acknowledged creating it/)
    expect(report.failure!.commands).toBe("(none: the inventory after every sequence)")
    expect(report.failure!.curl).toContain("/v1/pets?limit=100")
    expect(report.failure!.replay).toMatch(/--seed 3$/)
  }, 60_000)

  it("fails when an acknowledged pet is missing from the whole listing", async () => {
    const report = await run({ corrupt: inventoryDropsNewest })
    expect(report.ok, formatReport(report)).toBe(false)
    // The newest pet may be one created under an Idempotency-Key: its own check then finds it missing first.
    expect(report.failure!.message).toMatch(
      /^the inventory after the run(?: \(the whole listing\): 1 pet\(s\) acknowledged with 201 are not listed: \d+|: no pet is named ".*", acknowledged as pet \d+ under its Idempotency-Key)/
    )
  }, 60_000)

  it("passes against the project's server, and reads every page it needs", async () => {
    const report = await run({})
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.warnings.filter((w) => w.includes("inventory"))).toEqual([])
  }, 60_000)
})
