/**
 * Properties of the interface's values: every valid `Pet`, `NewPet`, `Plan` and `PlanLimits` comes
 * back unchanged from encode → JSON → decode, and every invalid one (each rule broken on its own) is
 * refused; an API key is well-formed exactly when it is a prefix and 32 base62 characters, and its
 * hash and display prefix depend on it alone.
 */
import { fromSchema } from "@petstore/testkit/arbitraries"
import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as ApiKey from "../src/ApiKey.js"
import * as Pet from "../src/Pet.js"
import * as Plan from "../src/Plan.js"

/** `decode(JSON(encode(x)))` as the interface sends and reads it. */
const roundTrip = <S extends Schema.Codec<any, any>>(schema: S, value: S["Type"]) =>
  Schema.decodeUnknownResult(schema)(JSON.parse(JSON.stringify(Schema.encodeSync(schema)(value))))
const refused = <S extends Schema.Codec<any, any>>(schema: S, input: unknown) => Result.isFailure(Schema.decodeUnknownResult(schema)(input))

const validPet = fromSchema(Pet.Pet)
const badId = fc.oneof(
  fc.integer({ max: 0 }),
  fc.double({ noInteger: true, noNaN: true }),
  fc.constant(Pet.MAX_ID + 1),
  fc.constantFrom(Number.NaN, Infinity, -Infinity),
  fc.integer().map(String)
)
const blank = fc.string({ unit: fc.constantFrom(" ", "\t", "\n", "\r", "\u00a0", "\u2003"), maxLength: 8 })
const badName = fc.oneof(
  blank,
  fc.tuple(fc.string(), fc.string()).map(([a, b]) => `${a}x\u0000${b}`),
  fc.string({ unit: "grapheme-ascii", minLength: Pet.NAME_MAX_LENGTH + 1, maxLength: Pet.NAME_MAX_LENGTH + 20 }),
  fc.tuple(fc.string(), fc.integer({ min: 0xd800, max: 0xdfff })).map(([a, s]) => `x${a}${String.fromCharCode(s)}`),
  fc.integer()
)
const badStatus = fc.string().filter((s) => !["available", "pending", "sold"].includes(s))

describe("schema properties", () => {
  prop("a Pet comes back unchanged from encode → JSON → decode", [validPet], ([pet]) => {
    // `{ ...pet }`: the arbitrary may make an object without a prototype; the decoded one is a plain object.
    expect(roundTrip(Pet.Pet, pet)).toStrictEqual(Result.succeed({ ...pet }))
  })

  prop("a NewPet comes back unchanged from encode → JSON → decode", [fromSchema(Pet.NewPet)], ([pet]) => {
    // An optional field given as undefined is absent once in JSON, as a client would send it.
    const sent = Object.fromEntries(Object.entries(pet).filter(([, v]) => v !== undefined))
    expect(roundTrip(Pet.NewPet, pet)).toStrictEqual(Result.succeed(sent))
  })

  prop("a Pet with any one field invalid is refused", [
    validPet,
    fc.oneof(
      badId.map((id) => ({ id })),
      badId.map((categoryId) => ({ categoryId })),
      badName.map((name) => ({ name })),
      badStatus.map((status) => ({ status }))
    )
  ], ([pet, broken]) => {
    expect(refused(Pet.Pet, { ...Schema.encodeSync(Pet.Pet)(pet), ...broken })).toBe(true)
    if (!("id" in broken) && !("status" in broken)) {
      expect(refused(Pet.NewPet, { name: pet.name, categoryId: pet.categoryId, ...broken })).toBe(true)
    }
  })

  prop("a lone surrogate anywhere in a name is refused; the same name with a whole pair is not", [
    fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 20 }).filter((s) => s.trim().length > 0),
    fc.nat(),
    fc.integer({ min: 0xd800, max: 0xdbff })
  ], ([name, at, high]) => {
    const i = at % (name.length + 1)
    const lone = name.slice(0, i) + String.fromCharCode(high) + name.slice(i)
    const pair = name.slice(0, i) + String.fromCharCode(high, 0xdc00) + name.slice(i)
    expect(refused(Pet.PetName, lone)).toBe(true)
    expect(refused(Pet.PetName, pair)).toBe(false)
  })

  prop("Plan and PlanLimits come back unchanged; anything else is refused", [
    fromSchema(Plan.Plan),
    fromSchema(Plan.PlanLimits),
    fc.string().filter((s) => !["free", "pro", "business", "enterprise"].includes(s)),
    fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 1_000_000_001 }), fc.double({ noInteger: true, noNaN: true }))
  ], ([plan, limits, notPlan, badCount]) => {
    expect(roundTrip(Plan.Plan, plan)).toStrictEqual(Result.succeed(plan))
    expect(roundTrip(Plan.PlanLimits, limits)).toStrictEqual(Result.succeed({ ...limits }))
    expect(refused(Plan.Plan, notPlan)).toBe(true)
    expect(refused(Plan.PlanLimits, { ...limits, perDay: badCount })).toBe(true)
    if (badCount < 1 || badCount > 1_000_000 || !Number.isInteger(badCount)) {
      expect(refused(Plan.PlanLimits, { ...limits, perMinute: badCount })).toBe(true)
    }
  })
})

const BASE62 = [..."0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"]
const secret = fc.string({ unit: fc.constantFrom(...BASE62), minLength: 32, maxLength: 32 })
const prefix = fc.constantFrom(ApiKey.KEY_PREFIX.production, ApiKey.KEY_PREFIX.staging)

describe("API key properties", () => {
  prop("a prefix and 32 base62 characters is well-formed; its hash is 64 hex digits of it alone, its display prefix the first 13", [
    prefix,
    secret
  ], ([p, s]) => {
    const key = p + s
    expect(ApiKey.isWellFormed(key)).toBe(true)
    expect(ApiKey.hash(key)).toMatch(/^[0-9a-f]{64}$/)
    expect(ApiKey.hash(key)).toBe(ApiKey.hash(`${key}`))
    expect(ApiKey.displayPrefix(key)).toBe(key.slice(0, 13))
    expect(ApiKey.displayPrefix(key)).not.toContain(s.slice(4))
  })

  prop("a key with one character changed to one outside base62, one dropped or one added is not well-formed", [
    prefix,
    secret,
    fc.nat(),
    fc.char().filter((c) => !BASE62.includes(c)),
    fc.constantFrom("replace", "drop", "add")
  ], ([p, s, at, c, how]) => {
    const key = p + s
    const i = p.length + (at % s.length)
    const broken = how === "replace"
      ? key.slice(0, i) + c + key.slice(i + 1)
      : how === "drop"
      ? key.slice(0, i) + key.slice(i + 1)
      : key.slice(0, i) + BASE62[at % 62] + key.slice(i)
    expect(ApiKey.isWellFormed(broken)).toBe(false)
  })

  prop("two different keys never share a hash", [prefix, secret, secret], ([p, a, b]) => {
    fc.pre(a !== b)
    expect(ApiKey.hash(p + a)).not.toBe(ApiKey.hash(p + b))
  })
})
