import { prop } from "@petstore/testkit/Property"
import * as fc from "fast-check"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Result, Layer, Option } from "effect"
import { CursorSigner } from "../src/PageCursor.js"
import type { CategoryId, Pet, PetId } from "../src/Pet.js"
import { changeListeners, makeMemory, PetRepository } from "../src/PetRepository.js"
import { type Page, pageBytes, PAGE_LIMIT, Pets } from "../src/Pets.js"

const layer = Pets.layer.pipe(
  Layer.provideMerge(Layer.merge(PetRepository.layerMemory, CursorSigner.fromSecret(new Uint8Array(32).fill(1))))
)
const cat = 1 as CategoryId

/** The memory repository with a rename that it announces, as an adapter that changes pets must. */
const renaming = () => {
  const memory = makeMemory()
  const changes = changeListeners()
  const names = new Map<PetId, string>()
  const named = (pet: Pet): Pet => ({ ...pet, name: names.get(pet.id) ?? pet.name })
  const repository = PetRepository.of({
    ...memory,
    onChange: changes.onChange,
    listAfter: (request) => Effect.map(memory.listAfter(request), (rows) => rows.map(named)),
    findById: (id) => Effect.map(memory.findById(id), Option.map(named))
  })
  const rename = (id: PetId, name: string) => {
    names.set(id, name)
    changes.announce(id)
  }
  return { repository, rename }
}

const arbPet: fc.Arbitrary<Pet> = fc.record({
  id: fc.integer({ min: 1, max: 1_000_000 }).map((id) => id as PetId),
  name: fc.oneof(fc.string({ maxLength: 40 }), fc.fullUnicodeString({ maxLength: 40 })),
  categoryId: fc.integer({ min: 1, max: 1_000 }).map((id) => id as CategoryId),
  status: fc.constantFrom("available" as const, "pending" as const, "sold" as const)
})
const arbPage: fc.Arbitrary<Page> = fc.record({
  pets: fc.array(arbPet, { maxLength: 100 }),
  next: fc.option(fc.base64String({ maxLength: 60 }), { nil: undefined }).map(Option.fromNullishOr)
})

describe("Pets", () => {
  it("limit is 1..100, default 20", () => expect(PAGE_LIMIT).toEqual({ min: 1, max: 100, default: 20 }))

  it.effect("create stores the pet; status defaults to available; get finds it or fails with PetNotFound", () =>
    Effect.gen(function*() {
      const pets = yield* Pets
      const rex = yield* pets.create({ name: "Rex", categoryId: cat })
      expect(rex).toEqual({ id: 1, name: "Rex", categoryId: 1, status: "available" })
      const tom = yield* pets.create({ name: "Tom", categoryId: cat, status: "sold" })
      expect(tom.status).toBe("sold")
      expect(yield* pets.get(1 as PetId)).toEqual(rex)
      const missing = yield* Effect.result(pets.get(9 as PetId))
      expect(Result.isFailure(missing) && missing.failure).toMatchObject({ _tag: "PetNotFound", id: 9 })
    }).pipe(Effect.provide(layer)))

  it.effect("create stores only the body's fields: a wider object (a stored pet) gets a new id, its own is left behind", () =>
    Effect.gen(function*() {
      const pets = yield* Pets
      const rex = yield* pets.create({ name: "Rex", categoryId: cat })
      const again = yield* pets.create(rex)
      expect(again).toEqual({ id: 2, name: "Rex", categoryId: 1, status: "available" })
      const page = yield* pets.list({ limit: 10, status: Option.none(), cursor: Option.none() })
      expect(page.pets.map((pet) => pet.id)).toEqual([1, 2])
    }).pipe(Effect.provide(layer)))

  it.effect("list pages by id with a cursor exactly when more pets follow; a page with a cursor is full", () =>
    Effect.gen(function*() {
      const pets = yield* Pets
      for (let i = 1; i <= 5; i++) yield* pets.create({ name: `p${i}`, categoryId: cat, status: i % 2 === 0 ? "sold" : "available" })
      const first = yield* pets.list({ limit: 2, status: Option.none(), cursor: Option.none() })
      expect(first.pets.map((p) => p.id)).toEqual([1, 2])
      expect(Option.isSome(first.next)).toBe(true)
      const second = yield* pets.list({ limit: 2, status: Option.none(), cursor: first.next })
      expect(second.pets.map((p) => p.id)).toEqual([3, 4])
      const third = yield* pets.list({ limit: 2, status: Option.none(), cursor: second.next })
      expect(third.pets.map((p) => p.id)).toEqual([5])
      expect(third.next).toEqual(Option.none())
      // Exactly `limit` left: no next page.
      const exact = yield* pets.list({ limit: 5, status: Option.none(), cursor: Option.none() })
      expect(exact.pets).toHaveLength(5)
      expect(exact.next).toEqual(Option.none())
      // The filter: sold are 2 and 4.
      const sold = yield* pets.list({ limit: 1, status: Option.some("sold"), cursor: Option.none() })
      expect(sold.pets.map((p) => p.id)).toEqual([2])
      const soldNext = yield* pets.list({ limit: 1, status: Option.some("sold"), cursor: sold.next })
      expect(soldNext.pets.map((p) => p.id)).toEqual([4])
      expect(soldNext.next).toEqual(Option.none())
    }).pipe(Effect.provide(layer)))

  it.effect("a pet created while paging appears on a later page", () =>
    Effect.gen(function*() {
      const pets = yield* Pets
      for (let i = 1; i <= 3; i++) yield* pets.create({ name: `p${i}`, categoryId: cat })
      const first = yield* pets.list({ limit: 3, status: Option.none(), cursor: Option.none() })
      expect(first.next).toEqual(Option.none())
      const page = yield* pets.list({ limit: 2, status: Option.none(), cursor: Option.none() })
      yield* pets.create({ name: "late", categoryId: cat })
      const rest = yield* pets.list({ limit: 2, status: Option.none(), cursor: page.next })
      expect(rest.pets.map((p) => p.name)).toEqual(["p3", "late"])
    }).pipe(Effect.provide(layer)))

  it.effect("a cursor of another status filter, or a forged one, fails with InvalidCursor", () =>
    Effect.gen(function*() {
      const pets = yield* Pets
      for (let i = 1; i <= 3; i++) yield* pets.create({ name: `p${i}`, categoryId: cat, status: "sold" })
      const page = yield* pets.list({ limit: 1, status: Option.some("sold"), cursor: Option.none() })
      const other = yield* Effect.result(pets.list({ limit: 1, status: Option.some("pending"), cursor: page.next }))
      expect(Result.isFailure(other) && other.failure).toMatchObject({
        _tag: "InvalidCursor",
        reason: "cursor was issued for a different status filter"
      })
      const none = yield* Effect.result(pets.list({ limit: 1, status: Option.none(), cursor: page.next }))
      expect(Result.isFailure(none) && none.failure._tag).toBe("InvalidCursor")
      const forged = yield* Effect.result(pets.list({ limit: 1, status: Option.none(), cursor: Option.some("abc.def") }))
      expect(Result.isFailure(forged) && forged.failure._tag).toBe("InvalidCursor")
      const same = yield* pets.list({ limit: 1, status: Option.some("sold"), cursor: page.next })
      expect(same.pets.map((p) => p.id)).toEqual([2])
    }).pipe(Effect.provide(layer)))

  it.effect("a full page asked for again is the same page, until the repository announces a change to a pet", () =>
    Effect.gen(function*() {
      const { rename, repository } = renaming()
      const pets = yield* Effect.provide(
        Pets,
        Pets.layer.pipe(Layer.provide(Layer.merge(Layer.succeed(PetRepository, repository), CursorSigner.fromSecret(new Uint8Array(32).fill(1)))))
      )
      for (let i = 1; i <= 3; i++) yield* pets.create({ name: `p${i}`, categoryId: cat })
      const request = { limit: 2, status: Option.none(), cursor: Option.none() }
      const first = yield* pets.list(request)
      expect(Option.isSome(first.next)).toBe(true)
      expect(yield* pets.list(request)).toBe(first)
      rename(2 as PetId, "renamed")
      const after = yield* pets.list(request)
      expect(after.pets.map((p) => p.name)).toEqual(["p1", "renamed"])
      expect(yield* pets.list(request)).toBe(after)
    }))

  prop(
    "pageBytes counts at least the page's JSON text and grows with each pet, each character of a name and of the cursor",
    [arbPage, arbPet, fc.integer({ min: 1, max: 20 })],
    ([page, pet, more]) => {
      const bytes = pageBytes(page)
      const json = JSON.stringify({ pets: page.pets, next: Option.getOrNull(page.next) })
      expect(bytes).toBeGreaterThanOrEqual(Buffer.byteLength(json))
      expect(pageBytes({ ...page, pets: [...page.pets, pet] })).toBeGreaterThan(bytes)
      const cursor = Option.getOrElse(page.next, () => "")
      expect(pageBytes({ ...page, next: Option.some(cursor + "A".repeat(more)) })).toBeGreaterThan(pageBytes({ ...page, next: Option.some(cursor) }))
      if (page.pets.length > 0) {
        const [first, ...rest] = page.pets
        const longer = { ...first!, name: first!.name + "x".repeat(more) }
        expect(pageBytes({ ...page, pets: [longer, ...rest] })).toBeGreaterThan(bytes)
      }
    }
  )
})
