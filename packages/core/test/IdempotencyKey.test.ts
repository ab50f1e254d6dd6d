import * as fc from "fast-check"
import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { IdempotencyFingerprint, IdempotencyKey } from "@petstore/core"

const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 255 })

describe("IdempotencyKey.parse", () => {
  it("a key of 1 to 255 printable ASCII characters, quoted as an sf-string, is the same key as sent bare", () =>
    fc.assert(fc.property(printable.filter((k) => k.trim() === k && !k.includes("\"") && !k.includes(",")), (key) => {
      expect(IdempotencyKey.parse(key)).toStrictEqual(Result.succeed(key))
      expect(IdempotencyKey.parse(IdempotencyKey.quote(key))).toStrictEqual(Result.succeed(key))
    })))

  it("any printable key round-trips through the quoted form, escapes included", () =>
    fc.assert(fc.property(printable, (key) => {
      expect(IdempotencyKey.parse(IdempotencyKey.quote(key))).toStrictEqual(Result.succeed(key))
    })))

  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["empty quoted string", "\"\""],
    ["256 characters", "a".repeat(256)],
    ["256 characters quoted", `"${"a".repeat(256)}"`],
    ["a control character", "abc\u0001def"],
    ["a tab", "abc\tdef"],
    ["non-ASCII", "clé"],
    ["an unterminated quote", "\"abc"],
    ["a quote inside a bare key", "ab\"c"],
    ["an unescaped quote inside", "\"a\"b\""],
    ["an unknown escape", "\"a\\nb\""],
    ["a comma in a bare key (two fields joined)", "abc, def"],
    ["two quoted keys joined", "\"abc\", \"def\""],
    ["a quoted key joined to a bare one", "\"abc\", def"]
  ])("refuses %s", (_, value) => {
    expect(Result.isFailure(IdempotencyKey.parse(value))).toBe(true)
  })

  it("a comma is part of a quoted key", () => {
    expect(IdempotencyKey.parse("\"a,b\"")).toStrictEqual(Result.succeed("a,b"))
  })

  it("takes 255 characters, bare or quoted", () => {
    expect(IdempotencyKey.parse("k".repeat(255))).toStrictEqual(Result.succeed("k".repeat(255)))
    expect(IdempotencyKey.parse(`"${"k".repeat(255)}"`)).toStrictEqual(Result.succeed("k".repeat(255)))
  })
})

describe("IdempotencyFingerprint", () => {
  const json = fc.jsonValue()
  it("is the same for the same value whatever the order of its fields", () =>
    fc.assert(fc.property(fc.dictionary(fc.string(), json), (record) => {
      const reversed = Object.fromEntries(Object.entries(record).reverse())
      expect(IdempotencyFingerprint.of("createPet", reversed)).toBe(IdempotencyFingerprint.of("createPet", record))
    })))

  // Records kept before keep matching: the fingerprint is the SHA-256 of the operation, a newline and
  // the sorted JSON, as it was first defined (an array of parts joined, one Hash object per call).
  const sortedJson = (value: unknown): string => {
    if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null"
    if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`
    const record = value as Record<string, unknown>
    return `{${
      Object.keys(record).sort().filter((k) => record[k] !== undefined).map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(",")
    }}`
  }
  it("is the SHA-256 of the operation and the value's sorted JSON, as records kept earlier were fingerprinted", () =>
    fc.assert(fc.property(fc.constantFrom("createPet", "createMessage"), fc.anything(), (operation, value) => {
      expect(IdempotencyFingerprint.canonicalJson(value)).toBe(sortedJson(value))
      expect(IdempotencyFingerprint.of(operation, value)).toBe(
        createHash("sha256").update(operation).update("\n").update(sortedJson(value)).digest("hex")
      )
    })))

  it("differs between operations and between values", () =>
    fc.assert(fc.property(json, json, (a, b) => {
      expect(IdempotencyFingerprint.of("createPet", a)).not.toBe(IdempotencyFingerprint.of("createMessage", a))
      if (IdempotencyFingerprint.canonicalJson(a) !== IdempotencyFingerprint.canonicalJson(b)) {
        expect(IdempotencyFingerprint.of("createPet", a)).not.toBe(IdempotencyFingerprint.of("createPet", b))
      }
    })))
})
