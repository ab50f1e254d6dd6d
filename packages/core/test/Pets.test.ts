import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import { CursorSigner } from "../src/PageCursor.js"
import type { CategoryId, PetId } from "../src/Pet.js"
import { PetRepository } from "../src/PetRepository.js"
import { PAGE_LIMIT, Pets } from "../src/Pets.js"

const layer = Pets.layer.pipe(
  Layer.provideMerge(Layer.merge(PetRepository.layerMemory, CursorSigner.fromSecret(new Uint8Array(32).fill(1))))
)
const cat = 1 as CategoryId

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
      const missing = yield* Effect.either(pets.get(9 as PetId))
      expect(Either.isLeft(missing) && missing.left).toMatchObject({ _tag: "PetNotFound", id: 9 })
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
      const other = yield* Effect.either(pets.list({ limit: 1, status: Option.some("pending"), cursor: page.next }))
      expect(Either.isLeft(other) && other.left).toMatchObject({
        _tag: "InvalidCursor",
        reason: "cursor was issued for a different status filter"
      })
      const none = yield* Effect.either(pets.list({ limit: 1, status: Option.none(), cursor: page.next }))
      expect(Either.isLeft(none) && none.left._tag).toBe("InvalidCursor")
      const forged = yield* Effect.either(pets.list({ limit: 1, status: Option.none(), cursor: Option.some("abc.def") }))
      expect(Either.isLeft(forged) && forged.left._tag).toBe("InvalidCursor")
      const same = yield* pets.list({ limit: 1, status: Option.some("sold"), cursor: page.next })
      expect(same.pets.map((p) => p.id)).toEqual([2])
    }).pipe(Effect.provide(layer)))
})
