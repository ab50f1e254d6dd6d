/**
 * Pets: the store's inventory.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"

/** The largest identifier JSON numbers can carry exactly (2^53 − 1). */
export const MAX_ID = Number.MAX_SAFE_INTEGER

// `message` on the number itself: what a value of another type is told (the identifier otherwise).
const integerId = Schema.Number.annotate({ format: "int64", message: "Expected number" }).check(
  Schema.isInt({ message: "must be an integer" }),
  Schema.isBetween({ minimum: 1, maximum: MAX_ID }, { message: `must be between 1 and ${MAX_ID}` })
)

/** The identifier of an animal, assigned by the service. @category schemas */
export const PetId = integerId.pipe(Schema.brand("PetId")).annotate({
  identifier: "PetId",
  description: "Unique identifier of an animal, assigned by the service."
})
/** The identifier of an animal, decoded. */
export type PetId = typeof PetId.Type

/** The identifier of an animal's category. @category schemas */
export const CategoryId = integerId.pipe(Schema.brand("CategoryId")).annotate({
  identifier: "CategoryId",
  description: "Identifier of the category the animal belongs to."
})
/** The identifier of an animal's category, decoded. */
export type CategoryId = typeof CategoryId.Type

/** Maximum length of a name, in Unicode code points (as JSON Schema counts `maxLength`). */
export const NAME_MAX_LENGTH = 256

const codePoints = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** Whether `s` is well-formed Unicode: no lone surrogate (`String.prototype.isWellFormed`, ES2024). */
export const isWellFormed = (s: string): boolean => !LONE_SURROGATE.test(s)

const NAME_DESCRIPTION = "The animal's name: not blank, at most 256 characters, no NUL character."

/**
 * The checks of any text a store keeps: every store gives it back as it was sent. They add nothing
 * to the JSON Schema.
 */
export const storableText = [
  // No store keeps text with U+0000 the same way (PostgreSQL refuses it): refused for all of them.
  Schema.makeFilter((s: string) => !s.includes("\u0000") || "must not contain the NUL character (U+0000)", {
    toJsonSchema: () => [{}, true]
  }),
  // A lone surrogate (`"\ud800"` in JSON) is no character: stored as UTF-8 it would come back changed.
  Schema.makeFilter((s: string) => isWellFormed(s) || "must be well-formed Unicode (no lone surrogate)", {
    toJsonSchema: () => [{}, true]
  })
] as const

/**
 * A check that a text is at most `max` Unicode code points, as JSON Schema's `maxLength` counts (and
 * so as the OpenAPI document says), not UTF-16 units: an emoji counts once.
 *
 * @since 2.0.0
 * @category schemas
 */
export const maxCodePoints = (max: number) =>
  Schema.makeFilter((s: string) => codePoints(s) <= max || `must be at most ${max} characters`, {
    toJsonSchema: () => ({ maxLength: max })
  })

/**
 * A name is kept as sent; it must contain a non-blank character and be at most 256 code points.
 * `\S` in an ECMA-262 pattern and `String.prototype.trim` agree on what is blank.
 *
 * @category schemas
 */
export const PetName = Schema.String.check(
  Schema.makeFilter((s: string) => s.trim().length > 0 || "must not be blank", {
    toJsonSchema: () => ({ minLength: 1, pattern: "\\S" })
  }),
  ...storableText,
  maxCodePoints(NAME_MAX_LENGTH)
).annotate({ identifier: "PetName", description: NAME_DESCRIPTION })

/** Where an animal stands in the store: available, pending or sold. @category schemas */
export const PetStatus = Schema.Literals(["available", "pending", "sold"]).annotate({
  identifier: "PetStatus",
  description: "Availability of the animal."
})
/** An animal's status, decoded. */
export type PetStatus = typeof PetStatus.Type

/** The status a pet gets when the creation request leaves it out. */
export const DEFAULT_PET_STATUS: PetStatus = "available"

/**
 * The creation body, as the interface declares and decodes it. Unknown fields, `id` among them, are
 * ignored: the service assigns ids. Optional keys are exact (absent, never `undefined`), so an
 * explicit `null` status is refused with one clear issue.
 *
 * @category schemas
 */
export const NewPet = Schema.Struct({
  name: PetName,
  categoryId: CategoryId,
  status: Schema.optionalKey(PetStatus)
}).annotate({ identifier: "NewPet", description: "An animal to add; the service assigns its id." })
export type NewPet = typeof NewPet.Type

/** An animal kept in the store. @category schemas */
export const Pet = Schema.Struct({
  id: PetId,
  name: PetName,
  categoryId: CategoryId,
  status: PetStatus
}).annotate({ identifier: "Pet", description: "An animal of the store." })
/** An animal kept in the store, decoded. */
export type Pet = typeof Pet.Type

/** A page of animals, ordered by id. @category schemas */
export const Pets = Schema.Array(Pet).annotate({ identifier: "Pets", description: "A page of animals, ordered by id." })
/** A page of animals, decoded. */
export type Pets = typeof Pets.Type
