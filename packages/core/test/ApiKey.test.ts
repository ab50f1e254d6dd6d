import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createHash } from "node:crypto"
import * as ApiKey from "../src/ApiKey.js"
import { SecureRandom } from "../src/SecureRandom.js"

describe("ApiKey", () => {
  it.effect("a production key is psk_live_ and 32 base62 characters; storage keeps its SHA-256 and a short prefix", () =>
    Effect.gen(function*() {
      const generated = yield* ApiKey.generate("production")
      const key = Redacted.value(generated.key)
      expect(key).toMatch(/^psk_live_[0-9A-Za-z]{32}$/)
      expect(generated.hash).toBe(createHash("sha256").update(key).digest("hex"))
      expect(generated.prefix).toBe(key.slice(0, 13))
      expect(ApiKey.isWellFormed(key)).toBe(true)
      expect(String(generated.key)).not.toContain(key)
    }).pipe(Effect.provide(SecureRandom.Live)))

  it.effect("a staging key is psk_test_", () =>
    Effect.map(ApiKey.generate("staging"), (g) => expect(Redacted.value(g.key)).toMatch(/^psk_test_[0-9A-Za-z]{32}$/)).pipe(
      Effect.provide(SecureRandom.Live)
    ))

  it("KEY_PREFIX names both environments", () => {
    expect(ApiKey.KEY_PREFIX).toEqual({ production: "psk_live_", staging: "psk_test_" })
  })

  it("displayPrefix shows the prefix and four characters", () => {
    expect(ApiKey.displayPrefix("psk_live_ABCDEFGHIJ")).toBe("psk_live_ABCD")
  })

  it("hash is hex SHA-256", () => {
    expect(ApiKey.hash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  for (const [token, ok] of [
    ["psk_live_" + "a".repeat(32), true],
    ["psk_test_" + "Z9".repeat(16), true],
    ["psk_live_" + "a".repeat(31), false],
    ["psk_live_" + "a".repeat(33), false],
    ["psk_prod_" + "a".repeat(32), false],
    ["psk_live_" + "a".repeat(31) + "-", false],
    ["xpsk_live_" + "a".repeat(31), false],
    ["psk_live_" + "a".repeat(32) + "\n", false]
  ] as const) {
    it(`isWellFormed(${JSON.stringify(token)}) is ${ok}`, () => expect(ApiKey.isWellFormed(token)).toBe(ok))
  }
})
