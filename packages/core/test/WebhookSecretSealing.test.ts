import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { makeMemory, signingProblem, type WebhookEndpoint } from "../src/WebhookEndpoint.js"
import { KEY_BYTES, open, parseKey, PREFIX, SealedSecretUnreadable, seal, sealedStore } from "../src/WebhookSecretSealing.js"
import { secretFromBytes } from "../src/WebhookSignature.js"

const keyArb = fc.uint8Array({ minLength: KEY_BYTES, maxLength: KEY_BYTES })
const secretArb = fc.uint8Array({ minLength: 24, maxLength: 64 }).map(secretFromBytes)
const accountArb = fc.stringMatching(/^acc_[A-Za-z0-9]{1,22}$/)

const endpointOf = (accountId: string, secrets: ReadonlyArray<string>): WebhookEndpoint => ({
  accountId,
  url: "https://hooks.example/x",
  secrets: secrets.map((secret, i) => ({ secret, expiresAt: i === 0 ? null : 1_900_000_000_000 })),
  createdAt: 1,
  updatedAt: 2,
  failingSince: null,
  disabledAt: null,
  disabledReason: null
})

describe("WebhookSecretSealing", () => {
  it("a sealed secret opens to itself under its key and account, and shows nothing of it", () => {
    fc.assert(fc.property(keyArb, accountArb, secretArb, (key, accountId, secret) => {
      const sealed = seal(key, accountId, secret)
      expect(sealed.startsWith(PREFIX)).toBe(true)
      expect(sealed).not.toContain(secret.slice(6, 20))
      expect(open(key, accountId, sealed)).toBe(secret)
      // A fresh IV every time: the same secret never seals to the same text.
      expect(seal(key, accountId, secret)).not.toBe(sealed)
    }))
  })

  it("it does not open under another key, for another account, or altered", () => {
    fc.assert(fc.property(keyArb, keyArb, accountArb, accountArb, secretArb, (key, other, accountId, otherAccount, secret) => {
      const sealed = seal(key, accountId, secret)
      if (Buffer.compare(Buffer.from(key), Buffer.from(other)) !== 0) expect(() => open(other, accountId, sealed)).toThrow(SealedSecretUnreadable)
      if (otherAccount !== accountId) expect(() => open(key, otherAccount, sealed)).toThrow(SealedSecretUnreadable)
      const body = Buffer.from(sealed.slice(PREFIX.length), "base64url")
      body[body.length - 1]! ^= 1
      expect(() => open(key, accountId, PREFIX + body.toString("base64url"))).toThrow(/does not open with PETSTORE_WEBHOOK_SECRET_KEY/)
    }))
  })

  it("a secret stored in clear (before the key was set) reads as it is", () => {
    fc.assert(fc.property(keyArb, accountArb, secretArb, (key, accountId, secret) => {
      expect(open(key, accountId, secret)).toBe(secret)
    }))
  })

  it("the key is 64 hex digits or the base64 of 32 bytes, nothing else", () => {
    fc.assert(fc.property(keyArb, (key) => {
      const bytes = Buffer.from(key)
      expect(parseKey(bytes.toString("hex"))).toEqual(bytes)
      expect(parseKey(bytes.toString("base64"))).toEqual(bytes)
    }))
    expect(parseKey("00".repeat(31))).toBeUndefined()
    expect(parseKey(Buffer.alloc(16).toString("base64"))).toBeUndefined()
    expect(parseKey("not a key at all")).toBeUndefined()
  })

  it.effect("a sealed store holds only sealed secrets, and answers them opened; a clear one is sealed when written again", () =>
    Effect.gen(function*() {
      const key = Buffer.alloc(KEY_BYTES, 9)
      const inner = makeMemory()
      const store = sealedStore(inner, key)
      yield* Effect.forEach(
        fc.sample(fc.tuple(accountArb, fc.array(secretArb, { minLength: 1, maxLength: 3 })), 30),
        ([accountId, secrets]) =>
          Effect.gen(function*() {
            yield* store.put(endpointOf(accountId, secrets))
            const held = Option.getOrThrow(yield* inner.find(accountId))
            for (const s of held.secrets) expect(s.secret.startsWith(PREFIX)).toBe(true)
            for (const secret of secrets) expect(JSON.stringify(held)).not.toContain(secret.slice(6))
            expect(Option.getOrThrow(yield* store.find(accountId))).toEqual(endpointOf(accountId, secrets))
          })
      )
      const clear = endpointOf("acc_clear", [secretFromBytes(new Uint8Array(32).fill(3))])
      yield* inner.put(clear)
      const read = Option.getOrThrow(yield* store.find("acc_clear"))
      expect(read).toEqual(clear)
      yield* store.put(read)
      expect(Option.getOrThrow(yield* inner.find("acc_clear")).secrets[0]!.secret.startsWith(PREFIX)).toBe(true)
      expect(Option.isNone(yield* store.find("acc_none"))).toBe(true)
      // Under another key, or with none, a sealed secret does not open: read marked unreadable (naming
      // the variable), never failing the read; written back as it was stored.
      const sealedText = Option.getOrThrow(yield* inner.find("acc_clear")).secrets[0]!.secret
      for (const [other, why] of [[Buffer.alloc(KEY_BYTES, 8), /does not open with PETSTORE_WEBHOOK_SECRET_KEY/], [undefined, /PETSTORE_WEBHOOK_SECRET_KEY is not set/]] as const) {
        const wrong = sealedStore(inner, other)
        const unreadable = Option.getOrThrow(yield* wrong.find("acc_clear"))
        expect(unreadable.secrets).toEqual([{ secret: sealedText, expiresAt: null, unreadable: expect.stringMatching(why) }])
        expect(signingProblem(unreadable, 0)).toMatch(why)
        yield* wrong.put(unreadable)
        expect(Option.getOrThrow(yield* inner.find("acc_clear")).secrets).toEqual([{ secret: sealedText, expiresAt: null }])
      }
      expect(Option.getOrThrow(yield* store.find("acc_clear"))).toEqual(clear)
    }))
})
