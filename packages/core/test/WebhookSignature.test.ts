import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"

import { Webhook } from "standardwebhooks"
import {
  secretFromBytes,
  secretKey,
  sign,
  signatureHeader,
  verify,
  WebhookVerificationError
} from "../src/WebhookSignature.js"

const secretArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(secretFromBytes)
const idArb = fc.stringMatching(/^msg_[A-Za-z0-9]{1,22}$/)
const bodyArb = fc.json()
const NOW = 1_900_000_000

const headersOf = (id: string, timestamp: number, signature: string) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature
})

describe("WebhookSignature", () => {
  it("a secret is whsec_ and the base64 of its 24 to 64 bytes, and its key is those bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 24, maxLength: 64 }), (bytes) => {
      const secret = secretFromBytes(bytes)
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/)
      expect([...secretKey(secret)]).toEqual([...bytes])
    }))
    expect(() => secretFromBytes(new Uint8Array(23))).toThrow(RangeError)
  })

  it("the known vector of the specification's reference library", () => {
    // From standard-webhooks' JavaScript tests: the same secret, id, timestamp and body sign to this.
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    const body = "{\"test\": 2432232314}"
    expect(sign(secret, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
  })

  it("every signature the sender makes verifies, with the body as string or bytes, by ours and by standardwebhooks", () => {
    fc.assert(fc.property(secretArb, idArb, bodyArb, fc.integer({ min: -300, max: 300 }), (secret, id, body, skew) => {
      const header = sign(secret, id, NOW, body)
      expect(header).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/)
      const headers = headersOf(id, NOW, header)
      expect(verify(secret, body, headers, { nowSeconds: NOW + skew })).toEqual(JSON.parse(body))
      expect(verify([secret], Buffer.from(body, "utf8"), headers, { nowSeconds: NOW + skew })).toEqual(JSON.parse(body))
    }))
    fc.assert(fc.property(secretArb, idArb, bodyArb, (secret, id, body) => {
      const now = Math.floor(Date.now() / 1000)
      expect(new Webhook(secret).verify(body, headersOf(id, now, sign(secret, id, now, body)))).toEqual(JSON.parse(body))
    }))
  })

  it("a changed body, id or timestamp, or another secret, fails verification", () => {
    fc.assert(fc.property(secretArb, secretArb, idArb, bodyArb, (secret, other, id, body) => {
      fc.pre(secret !== other)
      const signature = sign(secret, id, NOW, body)
      const fails = (f: () => unknown) => expect(f).toThrow(WebhookVerificationError)
      fails(() => verify(secret, body + " ", headersOf(id, NOW, signature), { nowSeconds: NOW }))
      fails(() => verify(secret, body, headersOf(id + "x", NOW, signature), { nowSeconds: NOW }))
      fails(() => verify(secret, body, headersOf(id, NOW + 1, signature), { nowSeconds: NOW }))
      fails(() => verify(other, body, headersOf(id, NOW, signature), { nowSeconds: NOW }))
    }))
  })

  it("a timestamp more than the tolerance (5 minutes) away fails; missing headers fail", () => {
    const secret = secretFromBytes(new Uint8Array(32).fill(7))
    const signature = sign(secret, "msg_1", NOW, "{}")
    expect(() => verify(secret, "{}", headersOf("msg_1", NOW, signature), { nowSeconds: NOW + 301 })).toThrow(/tolerance/)
    expect(() => verify(secret, "{}", headersOf("msg_1", NOW, signature), { nowSeconds: NOW - 301 })).toThrow(/tolerance/)
    expect(() => verify(secret, "{}", { "webhook-id": "msg_1" }, { nowSeconds: NOW })).toThrow(/missing/)
  })

  it("during a rotation the header carries one signature per secret, and a receiver with either secret accepts", () => {
    fc.assert(fc.property(secretArb, secretArb, idArb, bodyArb, (current, previous, id, body) => {
      const header = signatureHeader([current, previous], id, NOW, body)
      expect(header.split(" ")).toEqual([sign(current, id, NOW, body), sign(previous, id, NOW, body)])
      for (const secret of [current, previous]) {
        expect(verify(secret, body, headersOf(id, NOW, header), { nowSeconds: NOW })).toEqual(JSON.parse(body))
      }
      const now = Math.floor(Date.now() / 1000)
      const live = signatureHeader([current, previous], id, now, body)
      expect(new Webhook(previous).verify(body, headersOf(id, now, live))).toEqual(JSON.parse(body))
    }))
  })

  it("headers are found in any case, and in a fetch Headers", () => {
    const secret = secretFromBytes(new Uint8Array(24).fill(1))
    const signature = sign(secret, "msg_a", NOW, "[1]")
    expect(verify(secret, "[1]", { "Webhook-Id": "msg_a", "WEBHOOK-TIMESTAMP": String(NOW), "webhook-signature": [signature] }, { nowSeconds: NOW }))
      .toEqual([1])
    expect(verify(secret, "[1]", new Headers(headersOf("msg_a", NOW, signature)), { nowSeconds: NOW })).toEqual([1])
  })
})
