import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Option } from "effect"
import { createHmac } from "node:crypto"
import * as PageCursor from "../src/PageCursor.js"
import { MAX_ID, type PetStatus } from "../src/Pet.js"
import { SecureRandom } from "../src/SecureRandom.js"

const SECRET = new Uint8Array(32).fill(7)
// Made in each test, not while the file loads, so that mutation testing sees which tests cover `make`.
const signer = () => PageCursor.make(SECRET)
const reason = (token: string) => {
  const decoded = signer().decode(token)
  return Result.isFailure(decoded) ? decoded.failure.reason : "valid"
}
/** A token signed with the right secret over any payload: only the payload checks can refuse it. */
const signed = (payload: string) => {
  const mac = createHmac("sha256", SECRET).update(payload).digest("base64url").slice(0, 22)
  return `${Buffer.from(payload).toString("base64url")}.${mac}`
}
const arbStatus = fc.option(fc.constantFrom<PetStatus>("available", "pending", "sold"), { nil: undefined })

describe("PageCursor", () => {
  prop("decode(encode(position)) is the position, for every id and status filter", [
    fc.integer({ min: 0, max: MAX_ID }),
    arbStatus
  ], ([afterId, status]) => {
    const position = { afterId, status: Option.fromNullishOr(status) }
    expect(signer().decode(signer().encode(position))).toEqual(Result.succeed(position))
  })

  it("a cursor is base64url of the id in base 36 and the status code, a dot and a 22-character MAC", () => {
    const token = signer().encode({ afterId: 35, status: Option.some("sold") })
    const [body, mac] = token.split(".")
    expect(Buffer.from(body!, "base64url").toString()).toBe("z.3")
    expect(mac).toHaveLength(22)
    expect(Buffer.from(signer().encode({ afterId: 0, status: Option.none() }).split(".")[0]!, "base64url").toString()).toBe("0.0")
    expect(Buffer.from(signer().encode({ afterId: 1, status: Option.some("available") }).split(".")[0]!, "base64url").toString())
      .toBe("1.1")
    expect(Buffer.from(signer().encode({ afterId: 1, status: Option.some("pending") }).split(".")[0]!, "base64url").toString())
      .toBe("1.2")
  })

  it("a cursor of another secret is refused", () => {
    const other = PageCursor.make(new Uint8Array(32).fill(8))
    expect(reason(other.encode({ afterId: 5, status: Option.none() }))).toBe("cursor was not issued by this service or was altered")
  })

  prop("any altered character is refused", [fc.integer({ min: 0, max: 10_000 }), fc.nat(), arbStatus], ([afterId, at, status]) => {
    const token = signer().encode({ afterId, status: Option.fromNullishOr(status) })
    const i = at % token.length
    const altered = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1)
    expect(Result.isFailure(signer().decode(altered))).toBe(true)
  })

  for (const [token, why] of [
    ["", "cursor is malformed"],
    ["abc", "cursor is malformed"],
    [".abc", "cursor is malformed"],
    ["MTA." + "A".repeat(200), "cursor is malformed"],
    ["MTA!.AAAAAAAAAAAAAAAAAAAAAA", "cursor is malformed"],
    ["MTA.AAAAAAAAAAAAAAAAAAAAAA", "cursor was not issued by this service or was altered"],
    ["MTA.short", "cursor was not issued by this service or was altered"]
  ] as const) {
    it(`${JSON.stringify(token.slice(0, 30))} is refused: ${why}`, () => expect(reason(token)).toBe(why))
  }

  it("the longest accepted cursor is 128 characters", () => {
    const base = signer().encode({ afterId: 1, status: Option.none() })
    expect(base.length).toBeLessThanOrEqual(128)
    expect(reason(base + "A".repeat(128 - base.length))).toBe("cursor was not issued by this service or was altered")
    expect(reason(base + "A".repeat(129 - base.length))).toBe("cursor is malformed")
  })

  for (const [payload, ok] of [
    ["-1.0", false],
    [`${(MAX_ID + 1).toString(36)}.0`, false],
    [`${MAX_ID.toString(36)}.0`, true],
    ["5.4", false],
    ["5.-1", false],
    ["5.x", false],
    ["5", false],
    ["5.3", true],
    ["zz.0", true],
    ["!.0", false]
  ] as const) {
    it(`a signed payload ${JSON.stringify(payload)} is ${ok ? "accepted" : "refused as malformed"}`, () => {
      expect(reason(signed(payload))).toBe(ok ? "valid" : "cursor is malformed")
    })
  }

  it("a secret shorter than 16 bytes is refused", () => {
    expect(() => PageCursor.make(new Uint8Array(15))).toThrow("at least 16 bytes")
    expect(() => PageCursor.make(new Uint8Array(16))).not.toThrow()
  })

  it.effect("random signers do not accept each other's cursors; fromSecret signers do", () =>
    Effect.gen(function*() {
      const make = (layer: typeof PageCursor.CursorSigner.random) =>
        Effect.provide(PageCursor.CursorSigner, layer).pipe(Effect.provide(SecureRandom.Live))
      const a = yield* make(PageCursor.CursorSigner.random)
      const b = yield* make(PageCursor.CursorSigner.random)
      const token = a.encode({ afterId: 3, status: Option.none() })
      expect(Result.isSuccess(a.decode(token))).toBe(true)
      expect(Result.isFailure(b.decode(token))).toBe(true)
      const c = yield* Effect.provide(PageCursor.CursorSigner, PageCursor.CursorSigner.fromSecret(SECRET))
      expect(c.decode(signer().encode({ afterId: 3, status: Option.none() }))).toEqual(
        Result.succeed({ afterId: 3, status: Option.none() })
      )
    }))
})
