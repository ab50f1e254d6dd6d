/**
 * `--webhook-receiver`: the checker's receiver gets every accepted message from a server that
 * delivers them as Standard Webhooks, and each fault planted in the delivery (lost, signed with
 * another secret, a webhook-id per attempt, another payload, the URL refused) fails the run,
 * saying what was wrong.
 */
import { describe, expect, it } from "@effect/vitest"
import { type WebhookDelivery, WebhookSignature } from "@petstore/core"
import { formatReport, runConformance } from "../src/index.js"
import { ADMIN_TOKEN, type ServerVariant, startServer } from "./support/InProcessServer.js"

const OTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString("base64")}`

const run = async (variant: ServerVariant, seed: number, numRuns = 20) => {
  const server = await startServer(variant)
  try {
    return await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns, seed, webhookReceiver: true, webhookWaitMs: 3_000 })
  } finally {
    await server.close()
  }
}

/**
 * A server that changes each delivery and signs what it sends with the endpoint's own secret (read
 * from the PUT's answer on its way out), so only the change is wrong.
 */
const changedThenSigned = (change: (request: WebhookDelivery.DeliveryRequest) => WebhookDelivery.DeliveryRequest): ServerVariant => {
  const secrets = new Map<string, string>()
  return {
    corrupt: (request, response) => {
      if (request.method === "PUT" && /\/webhook$/.test(request.url) && response.status === 200 && response.body !== undefined) {
        const { url, secret } = JSON.parse(response.body)
        secrets.set(url, secret)
      }
      return response
    },
    webhooks: {
      send: (original) => {
        const r = change(original)
        const id = r.headers["webhook-id"]!
        const timestamp = Number(r.headers["webhook-timestamp"])
        return { ...r, headers: { ...r.headers, "webhook-signature": WebhookSignature.sign(secrets.get(r.url)!, id, timestamp, r.body) } }
      }
    }
  }
}

describe("conformance: webhook deliveries to the checker's receiver", () => {
  it("a server that delivers every message, signed, passes; the report counts what arrived", async () => {
    const report = await run({ webhooks: {} }, 2701, 40)
    expect(report.ok, formatReport(report)).toBe(true)
    expect(report.webhooks?.messages).toBeGreaterThan(0)
    expect(report.webhooks!.deliveries).toBeGreaterThanOrEqual(report.webhooks!.messages)
    expect(report.webhooks!.endpoints).toBeGreaterThanOrEqual(4)
    expect(formatReport(report)).toMatch(/webhooks: \d+ accepted messages delivered to \d+ endpoints, all verified/)
  }, 120_000)

  it("a server that loses deliveries (answered, never sent) fails, naming a message that did not arrive", async () => {
    let n = 0
    const report = await run({ webhooks: { send: (request) => (++n % 2 === 0 ? undefined : request) } }, 2702)
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(/\d+ of the \d+ messages accepted with 202 .* did not arrive there within 3000 ms after the run: msg_\w+/)
  }, 120_000)

  it("a server that signs with another secret fails: the delivery does not verify with the secret the PUT answered", async () => {
    const report = await run({
      webhooks: {
        send: (r) => ({
          ...r,
          headers: {
            ...r.headers,
            "webhook-signature": WebhookSignature.sign(OTHER_SECRET, r.headers["webhook-id"]!, Number(r.headers["webhook-timestamp"]), r.body)
          }
        })
      }
    }, 2703)
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(
      /the delivery of message msg_\w+ to the endpoint of account acc_\w+ does not verify \(standardwebhooks\) with the secret PUT \/admin\/v1\/accounts\/acc_\w+\/webhook answered: No matching signature found/
    )
  }, 120_000)

  it("a server whose webhook-id is not the message's id (one per attempt) fails", async () => {
    let attempt = 0
    const report = await run(changedThenSigned((r) => ({ ...r, headers: { ...r.headers, "webhook-id": `evt_${++attempt}` } })), 2704)
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(/the delivery of message evt_\d+ .*: the checker never got a 202 for a message evt_\d+ of this account/)
  }, 120_000)

  it("a server that delivers another payload than the message fails, quoting it", async () => {
    const report = await run(changedThenSigned((r) => {
      const event = JSON.parse(r.body)
      return { ...r, body: JSON.stringify({ ...event, data: { ...event.data, message: `${event.data.message}!` } }) }
    }), 2705)
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(/the delivery of message msg_\w+ .*: the payload \{.*!".* is not \{"type": "message.submitted", "data": \{"id":"msg_\w+"/)
  }, 120_000)

  it("a server that refuses the receiver's URL fails at once, saying to allow private addresses", async () => {
    const report = await run({ webhooks: { urlProblem: () => "url must be an https URL" } }, 2706, 3)
    expect(report.ok).toBe(false)
    expect(report.failure?.message).toMatch(/the server refused the receiver's URL \(plain http, on a loopback or private address\): run it with PETSTORE_WEBHOOK_ALLOW_PRIVATE=true/)
  }, 60_000)

  it("a server without webhook endpoints fails at once with the option, and the option needs the admin token", async () => {
    const server = await startServer()
    try {
      const report = await runConformance({ baseUrl: server.url, adminToken: ADMIN_TOKEN, numRuns: 3, seed: 2707, webhookReceiver: true })
      expect(report.ok).toBe(false)
      expect(report.failure?.message).toMatch(/the server offers no webhook endpoints/)
      await expect(runConformance({ baseUrl: server.url, keys: [{ key: "psk_test_x", limits: { perMinute: 60, perDay: 1000 } }], webhookReceiver: true }))
        .rejects.toThrow(/the webhook receiver needs the admin token/)
    } finally {
      await server.close()
    }
  }, 60_000)
})
