/**
 * The receiver examples of docs/webhooks.md (`examples/webhook-receivers/*`): Express, Fastify and
 * node:http each keep the raw body, accept a delivery signed as the server signs it (multibyte text
 * included), and refuse one with a changed body or a wrong secret with 400. docs/webhooks.md shows
 * each file exactly as tested.
 */
import { describe, expect, it } from "@effect/vitest"
import { WebhookDelivery, WebhookSignature } from "@petstore/core"
import * as Fs from "node:fs"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import * as ExpressReceiver from "../examples/webhook-receivers/express.js"
import * as FastifyReceiver from "../examples/webhook-receivers/fastify.js"
import * as NodeReceiver from "../examples/webhook-receivers/node-http.js"

const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const SECRET = WebhookSignature.secretFromBytes(new Uint8Array(32).fill(42))
const OTHER = WebhookSignature.secretFromBytes(new Uint8Array(32).fill(43))

const delivery = (secret: string, url: string) => {
  const endpoint = { accountId: "acc_1", url, secrets: [{ secret, expiresAt: null }], createdAt: 0, updatedAt: 0, failingSince: null, disabledAt: null, disabledReason: null }
  return WebhookDelivery.deliveryRequest(endpoint, { id: "msg_abc", accountId: "acc_1", message: "Grüße, 🐈 \"quoted\"", attempt: 1, createdAt: Date.now() }, Date.now(), 15_000)
}

const post = (request: WebhookDelivery.DeliveryRequest, body = request.body) =>
  fetch(request.url, { method: "POST", headers: request.headers, body })

const receivers = [
  ["express", (onEvent: (e: unknown) => void) => ExpressReceiver.start(SECRET, onEvent).then((s) => ({ port: (s.address() as AddressInfo).port, close: () => new Promise<void>((r) => s.close(() => r())) }))],
  ["fastify", (onEvent: (e: unknown) => void) => FastifyReceiver.start(SECRET, onEvent).then((app) => ({ port: (app.server.address() as AddressInfo).port, close: () => app.close() }))],
  ["node-http", (onEvent: (e: unknown) => void) => NodeReceiver.start(SECRET, onEvent).then((s) => ({ port: (s.address() as AddressInfo).port, close: () => new Promise<void>((r) => s.close(() => r())) }))]
] as const

describe("webhook receiver examples", () => {
  for (const [name, start] of receivers) {
    it(`${name}: accepts a signed delivery with its raw body; refuses a changed body or another secret`, async () => {
      const events: Array<unknown> = []
      const receiver = await start((e) => events.push(e))
      try {
        const url = `http://127.0.0.1:${receiver.port}/webhooks/petstore`
        const good = delivery(SECRET, url)
        expect((await post(good)).status).toBe(204)
        expect(events).toEqual([JSON.parse(good.body)])
        // The same JSON re-serialised with other spacing is not what was signed.
        const changed = await post(good, JSON.stringify(JSON.parse(good.body), null, 2))
        expect(changed.status).toBe(400)
        expect(await changed.json()).toEqual({ error: "no matching signature" })
        expect((await post(delivery(OTHER, url))).status).toBe(400)
        expect(events).toHaveLength(1)
      } finally {
        await receiver.close()
      }
    })
  }

  it("docs/webhooks.md shows each example exactly as tested", () => {
    const page = Fs.readFileSync(`${ROOT}docs/webhooks.md`, "utf8")
    for (const file of ["express.ts", "fastify.ts", "node-http.ts"]) {
      const code = Fs.readFileSync(`${ROOT}packages/http-node/examples/webhook-receivers/${file}`, "utf8")
      expect([file, page.includes(code)]).toEqual([file, true])
    }
  })
})
