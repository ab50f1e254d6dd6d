/**
 * The admin API's first stage, the gate (refusal, or "go on" with `Cache-Control: no-store` on every
 * answer after it), and `/metrics`' last, the scrape (the exporter's text, labelled with its route).
 */
import { Clock, Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import * as AdminGate from "../../src/internal/adminGate.js"
import * as AdminGateStage from "../../src/internal/stages/adminGate.js"
import * as Scrape from "../../src/internal/stages/scrape.js"
import { write } from "../../src/internal/stages/write.js"
import { exchange, outcome, outcomeAtOnce } from "./support/Stages.js"

const TOKEN = "an-admin-token-of-32-characters-x"
const gate = AdminGateStage.make(
  AdminGate.make({ adminToken: Option.some(Redacted.make(TOKEN)), clientAddress: (r) => r.remoteAddress! }),
  Clock.Clock.defaultValue()
)

describe("stage admin gate", () => {
  it("the admin token goes on, and every answer after it is never cached; without it, 401 and no such header", () => {
    const passed = exchange({ headers: { authorization: `Bearer ${TOKEN}` } })
    expect(outcomeAtOnce(gate, passed)).toBeUndefined()
    expect(passed.admission).toStrictEqual({ "Cache-Control": "no-store" })
    const refused = exchange({ headers: { authorization: "Bearer wrong-token" } })
    const answer = outcomeAtOnce(gate, refused)
    expect(answer?.status).toBe(401)
    expect(write(refused, answer!).headers["Cache-Control"]).toBeUndefined()
  })

  it("without an admin token configured the admin API does not exist (404)", () => {
    const closed = AdminGateStage.make(AdminGate.make({ adminToken: Option.none(), clientAddress: () => "x" }), Clock.Clock.defaultValue())
    expect(outcomeAtOnce(closed, exchange({ headers: { authorization: `Bearer ${TOKEN}` } }))?.status).toBe(404)
  })
})

describe("stage scrape", () => {
  it("answers the exporter's text with its media type, labelled GET /metrics", async () => {
    const stage = Scrape.make({ scrape: Effect.succeed("# HELP x\nx 1\n"), contentType: "text/plain; version=0.0.4" })
    const e = exchange({ url: "/metrics" })
    const answer = (await outcome(stage, e))!
    const response = write(e, answer)
    expect(response).toMatchObject({ status: 200, body: "# HELP x\nx 1\n", route: "GET /metrics" })
    expect(response.headers["Content-Type"]).toBe("text/plain; version=0.0.4")
  })
})
