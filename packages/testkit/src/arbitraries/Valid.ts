/**
 * Valid inputs of the pet store interface, derived from the core's schemas with Effect's
 * `Arbitrary.schema` (through `fromSchema`) and encoded with the same schemas, so they are exactly
 * what a conforming server must accept.
 *
 * @since 1.0.0
 */
import { fromSchema } from "./FromSchema.js"
import * as fc from "fast-check"
import { Message, Pet, Pets } from "@petstore/core"
import { Schema } from "effect"

/** A NewPet body as JSON sends it (`status` left out or one of the enum). @category arbitraries */
export const newPet: fc.Arbitrary<{ readonly name: string; readonly categoryId: number; readonly status?: Pet.PetStatus }> =
  fromSchema(Pet.NewPet).map((pet) => JSON.parse(JSON.stringify(Schema.encodeSync(Pet.NewPet)(pet))))

/** A pet status. @category arbitraries */
export const petStatus: fc.Arbitrary<Pet.PetStatus> = fromSchema(Pet.PetStatus)

/** A `limit` of `GET /pets`: 1..100. @category arbitraries */
export const pageLimit: fc.Arbitrary<number> = fc.integer({ min: Pets.PAGE_LIMIT.min, max: Pets.PAGE_LIMIT.max })

/** A query of `GET /pets` without a cursor: `limit` and `status`, each optional. @category arbitraries */
export const listQuery: fc.Arbitrary<{ readonly limit?: number; readonly status?: Pet.PetStatus }> = fc.record(
  { limit: pageLimit, status: petStatus },
  { requiredKeys: [] }
)

/** A NewMessage body. @category arbitraries */
export const newMessage: fc.Arbitrary<{ readonly message: string }> = fromSchema(Message.NewMessage).map((m) =>
  Schema.encodeSync(Message.NewMessage)(m)
)

/** The scheme word of a valid `Authorization` header: any case is accepted. @category arbitraries */
export const bearerScheme: fc.Arbitrary<string> = fc.constantFrom("Bearer", "Bearer", "Bearer", "bearer", "BEARER", "bEaReR")
