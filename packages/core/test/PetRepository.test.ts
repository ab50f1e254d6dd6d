import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import type { CategoryId, PetId, PetStatus } from "../src/Pet.js"
import { makeMemory, PetRepository } from "../src/PetRepository.js"

const draft = (name: string, status: PetStatus) => ({ name, categoryId: 1 as CategoryId, status })

describe("PetRepository (memory)", () => {
  it.effect("ids start at 1 and increase by one; findById finds exactly the stored pet", () =>
    Effect.gen(function*() {
      const repo = yield* PetRepository
      const a = yield* repo.insert(draft("a", "available"))
      const b = yield* repo.insert(draft("b", "sold"))
      expect([a.id, b.id]).toEqual([1, 2])
      expect(b).toEqual({ id: 2, name: "b", categoryId: 1, status: "sold" })
      expect(yield* repo.findById(2 as PetId)).toEqual(Option.some(b))
      expect(yield* repo.findById(3 as PetId)).toEqual(Option.none())
    }).pipe(Effect.provide(PetRepository.layerMemory)))

  it.effect("listAfter: pets after an id, by id, up to the limit, with or without a status", () =>
    Effect.gen(function*() {
      const repo = makeMemory()
      const statuses: ReadonlyArray<PetStatus> = ["available", "sold", "available", "pending", "sold", "available", "sold"]
      for (const [i, s] of statuses.entries()) yield* repo.insert(draft(`p${i + 1}`, s))
      const ids = (pets: ReadonlyArray<{ readonly id: number }>) => pets.map((p) => p.id)
      expect(ids(yield* repo.listAfter({ afterId: 0, limit: 100, status: Option.none() }))).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(ids(yield* repo.listAfter({ afterId: 0, limit: 3, status: Option.none() }))).toEqual([1, 2, 3])
      expect(ids(yield* repo.listAfter({ afterId: 3, limit: 2, status: Option.none() }))).toEqual([4, 5])
      expect(ids(yield* repo.listAfter({ afterId: 7, limit: 2, status: Option.none() }))).toEqual([])
      expect(ids(yield* repo.listAfter({ afterId: 0, limit: 10, status: Option.some("sold") }))).toEqual([2, 5, 7])
      expect(ids(yield* repo.listAfter({ afterId: 2, limit: 10, status: Option.some("sold") }))).toEqual([5, 7])
      expect(ids(yield* repo.listAfter({ afterId: 4, limit: 1, status: Option.some("sold") }))).toEqual([5])
      expect(ids(yield* repo.listAfter({ afterId: 5, limit: 1, status: Option.some("sold") }))).toEqual([7])
      expect(ids(yield* repo.listAfter({ afterId: 6, limit: 5, status: Option.some("available") }))).toEqual([])
      expect(ids(yield* repo.listAfter({ afterId: 0, limit: 5, status: Option.some("pending") }))).toEqual([4])
      expect(ids(yield* repo.listAfter({ afterId: 1, limit: 5, status: Option.some("available") }))).toEqual([3, 6])
    }))

  it.effect("listAfter with an afterId between stored ids starts at the next one", () =>
    Effect.gen(function*() {
      const repo = makeMemory()
      for (let i = 0; i < 9; i++) yield* repo.insert(draft(`p${i}`, i % 3 === 0 ? "sold" : "available"))
      // sold: 1, 4, 7
      const sold = (afterId: number) =>
        Effect.map(repo.listAfter({ afterId, limit: 10, status: Option.some("sold") }), (ps) => ps.map((p) => p.id))
      expect(yield* sold(2)).toEqual([4, 7])
      expect(yield* sold(3)).toEqual([4, 7])
      expect(yield* sold(4)).toEqual([7])
      expect(yield* sold(6)).toEqual([7])
      expect(yield* sold(7)).toEqual([])
      expect(yield* sold(100)).toEqual([])
    }))
})
