/**
 * The compiled response encoder gives exactly what `Schema.encode` gives, as JSON, for every value of
 * the schema: the success schemas of the API (structs, arrays, refinements, literals, nulls) and a
 * schema with a transformation, which it leaves to `Schema.encodeSync`.
 */
import { fromSchema } from "@petstore/testkit/arbitraries"
import * as fc from "fast-check"
import { Message, Pet } from "@petstore/core"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { IssuedKey, KeyMetadata } from "../../src/AdminApi.js"
import * as Encoder from "../../src/internal/encoder.js"

const same = <A, I>(schema: Schema.Schema<A, I>) =>
  fc.assert(fc.property(fromSchema(schema), (value) => {
    expect(Encoder.compile(schema.ast)(value)).toBe(JSON.stringify(Schema.encodeSync(schema)(value)))
  }), { numRuns: 200 })

describe("compiled encoder", () => {
  it("encodes the API's success schemas as Schema.encode does", () => {
    same(Pet.Pet)
    same(Pet.Pets)
    same(Message.Message)
    same(IssuedKey)
    same(Schema.Array(KeyMetadata))
  })

  it("leaves out fields the schema does not declare, and optional fields that are absent", () => {
    const schema = Schema.Struct({ a: Schema.Number, b: Schema.optional(Schema.String) })
    expect(Encoder.compile(schema.ast)({ a: 1, secret: "x" })).toBe("{\"a\":1}")
  })

  it("a transformation is encoded by the schema itself", () => {
    const schema = Schema.Struct({ at: Schema.DateFromString, n: Schema.NumberFromString })
    same(schema)
    expect(Encoder.compile(schema.ast)({ at: new Date(0), n: 5 })).toBe("{\"at\":\"1970-01-01T00:00:00.000Z\",\"n\":\"5\"}")
  })

  it("copies fields whatever their names (quotes, backslashes, line separators, digits), in the schema's order", () => {
    const names = fc.uniqueArray(
      fc.oneof(fc.string(), fc.constantFrom("\"", "\\", "\u2028", "\n", "0", "constructor", "a b")).filter((name) => name !== "__proto__"),
      { minLength: 1, maxLength: 6 }
    )
    fc.assert(fc.property(names, fc.boolean(), (keys, optionalFirst) => {
      const fields = Object.fromEntries(keys.map((key, index) =>
        [key, index === 0 && optionalFirst ? Schema.optional(Schema.Number) : Schema.Number]
      ))
      const schema = Schema.Struct(fields) as unknown as Schema.Schema<Record<string, number>>
      const value = Object.fromEntries(keys.map((key, index) => [key, index]))
      expect(Encoder.compile(schema.ast)(value)).toBe(JSON.stringify(Schema.encodeSync(schema)(value)))
    }), { numRuns: 200 })
  })
})
