import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Pet from "../src/Pet.js"
import { jsonSchemaOf } from "./support/JsonSchema.js"

const decode = <S extends Schema.ConstraintDecoder<unknown>>(schema: S) => (input: unknown) => Schema.decodeUnknownResult(schema)(input)
const message = (result: Result.Result<unknown, { readonly message: string }>) =>
  Result.isFailure(result) ? result.failure.message : "decoded"

describe("Pet", () => {
  it("MAX_ID is 2^53 − 1, the largest id JSON numbers carry exactly", () => {
    expect(Pet.MAX_ID).toBe(2 ** 53 - 1)
  })

  for (const [name, schema] of [["PetId", Pet.PetId], ["CategoryId", Pet.CategoryId]] as const) {
    describe(name, () => {
      for (const ok of [1, 2, 12_345, Pet.MAX_ID]) {
        it(`accepts ${ok}`, () => expect(Result.isSuccess(decode(schema)(ok))).toBe(true))
      }
      for (const [bad, why] of [
        [0, `must be between 1 and ${Pet.MAX_ID}`],
        [-1, `must be between 1 and ${Pet.MAX_ID}`],
        [Pet.MAX_ID + 1, "must be an integer"],
        [1e300, "must be an integer"],
        [1.5, "must be an integer"],
        ["1", "Expected number"]
      ] as const) {
        it(`refuses ${JSON.stringify(bad)}: ${why}`, () => expect(message(decode(schema)(bad))).toContain(why))
      }
      it("is described in JSON Schema as an int64 integer in 1 .. 2^53 − 1", () => {
        const json = jsonSchemaOf(schema) as unknown as { $defs: Record<string, Record<string, unknown>> }
        expect(json.$defs[name]).toMatchObject({ type: "integer", format: "int64", minimum: 1, maximum: Pet.MAX_ID })
        expect(String(json.$defs[name]!.description)).toMatch(/category|animal/)
      })
    })
  }

  describe("PetName: not blank, at most 256 code points, kept as sent", () => {
    for (const ok of ["Rex", " Rex ", "a", "n".repeat(256), "🐶".repeat(256), "\u00a0x"]) {
      it(`accepts ${JSON.stringify(ok.slice(0, 12))} (${[...ok].length} code points)`, () => {
        expect(Schema.decodeUnknownSync(Pet.PetName)(ok)).toBe(ok)
      })
    }
    for (const blank of ["", " ", "\t\n", "\u00a0", "\u3000", "\ufeff"]) {
      it(`refuses the blank ${JSON.stringify(blank)}`, () => {
        expect(message(decode(Pet.PetName)(blank))).toContain("must not be blank")
      })
    }
    it("refuses 257 code points, counting astral characters once", () => {
      expect(message(decode(Pet.PetName)("n".repeat(257)))).toContain("must be at most 256 characters")
      expect(message(decode(Pet.PetName)("🐶".repeat(257)))).toContain("must be at most 256 characters")
    })
    it("refuses non-strings", () => expect(Result.isFailure(decode(Pet.PetName)(7))).toBe(true))
    it("is described in JSON Schema by length and a non-blank pattern", () => {
      const json = jsonSchemaOf(Pet.PetName) as unknown as { $defs: Record<string, Record<string, unknown>> }
      expect(json.$defs.PetName).toMatchObject({ type: "string", minLength: 1, maxLength: 256, pattern: "\\S" })
    })
  })

  it("PetStatus is available, pending or sold; a new pet defaults to available", () => {
    for (const s of ["available", "pending", "sold"]) expect(Schema.decodeUnknownSync(Pet.PetStatus)(s)).toBe(s)
    for (const s of ["Available", "adopted", "", null]) expect(Result.isFailure(decode(Pet.PetStatus)(s))).toBe(true)
    expect(Pet.DEFAULT_PET_STATUS).toBe("available")
  })

  it("NewPet ignores unknown fields and id, and status is optional", () => {
    expect(Schema.decodeUnknownSync(Pet.NewPet)({ name: "Rex", categoryId: 1, id: 99, extra: true })).toEqual({
      name: "Rex",
      categoryId: 1
    })
    expect(Schema.decodeUnknownSync(Pet.NewPet)({ name: "Rex", categoryId: 1, status: "sold" })).toEqual({
      name: "Rex",
      categoryId: 1,
      status: "sold"
    })
    expect(Result.isFailure(decode(Pet.NewPet)({ name: "Rex" }))).toBe(true)
    expect(Result.isFailure(decode(Pet.NewPet)({ categoryId: 1 }))).toBe(true)
  })

  it("Pet requires every field; Pets is an array of Pet; the schemas carry their OpenAPI names", () => {
    const pet = { id: 1, name: "Rex", categoryId: 2, status: "pending" }
    expect(Schema.decodeUnknownSync(Pet.Pets)([pet])).toEqual([pet])
    expect(Result.isFailure(decode(Pet.Pet)({ id: 1, name: "Rex", categoryId: 2 }))).toBe(true)
    const names = (s: Schema.Top) => Object.keys((jsonSchemaOf(s) as unknown as { $defs?: object }).$defs ?? {})
    expect(names(Pet.Pet)).toEqual(expect.arrayContaining(["Pet", "PetId", "PetName", "CategoryId", "PetStatus"]))
    expect(names(Pet.NewPet)).toContain("NewPet")
    expect(names(Pet.Pets)).toContain("Pets")
    const described = jsonSchemaOf(Pet.Pets) as unknown as { $defs: Record<string, { description?: string }> }
    expect(described.$defs.Pets!.description).toContain("ordered by id")
    expect(described.$defs.Pet!.description).toContain("animal")
    expect(described.$defs.NewPet ?? described.$defs.Pet).toBeDefined()
    expect((jsonSchemaOf(Pet.NewPet) as unknown as { $defs: Record<string, { description?: string }> }).$defs.NewPet!.description)
      .toContain("assigns its id")
    expect(described.$defs.PetStatus!.description).toContain("Availability")
  })
})
