/**
 * Laws every `PetRepository` implementation obeys.
 *
 * @since 1.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, Layer, Option, Schema } from "effect"
import { Pet, PetRepository } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { isStrictlyIncreasing, petName, numRuns, plain, property } from "./internal/support.js"

type Repository = PetRepository.PetRepository["Service"]

const draft: fc.Arbitrary<PetRepository.PetDraft> = fc.record({
  name: petName,
  categoryId: fromSchema(Pet.CategoryId),
  status: fromSchema(Pet.PetStatus)
})
const drafts = (maxLength: number) => fc.array(draft, { maxLength })
const statusFilter = fc.option(fromSchema(Pet.PetStatus), { nil: undefined }).map(Option.fromNullishOr)

const insertAll = (repo: Repository, ds: ReadonlyArray<PetRepository.PetDraft>) =>
  Effect.forEach(ds, (d) => repo.insert(d))

const matches = (status: Option.Option<Pet.PetStatus>) => (pet: Pet.Pet) =>
  Option.isNone(status) || pet.status === status.value

/**
 * Registers the laws of `PetRepository` for the implementation `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const petRepositoryLaws = <E>(
  name: string,
  layer: Layer.Layer<PetRepository.PetRepository, E>,
  options?: LawSuiteOptions
): void => {
  const withRepo = <A, E2>(f: (repo: Repository) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(PetRepository.PetRepository, f), layer)
  const runs = numRuns(options)

  describe(`PetRepository laws: ${name}`, () => {
    property("ids are positive safe integers that strictly increase in insert order", [drafts(30)], ([ds]) =>
      withRepo((repo) =>
        Effect.map(insertAll(repo, ds), (pets) => {
          const ids = pets.map((p) => p.id)
          for (const id of ids) expect(Schema.is(Pet.PetId)(id)).toBe(true)
          expect(isStrictlyIncreasing(ids)).toBe(true)
        })
      ), runs)

    property("concurrent inserts get distinct ids", [drafts(30)], ([ds]) =>
      withRepo((repo) =>
        Effect.map(Effect.forEach(ds, (d) => repo.insert(d), { concurrency: "unbounded" }), (pets) => {
          expect(new Set(pets.map((p) => p.id)).size).toBe(ds.length)
        })
      ), runs)

    property("insert returns the draft with its id, and findById returns exactly that pet", [drafts(20)], ([ds]) =>
      withRepo((repo) =>
        Effect.gen(function*() {
          const pets = yield* insertAll(repo, ds)
          for (const [i, pet] of pets.entries()) {
            expect(plain(pet)).toStrictEqual({ id: pet.id, ...ds[i]! })
            const found = yield* repo.findById(pet.id)
            expect(Option.map(found, plain)).toStrictEqual(Option.some(plain(pet)))
          }
        })
      ), runs)

    property(
      "findById of an id never assigned is None",
      [drafts(10), fromSchema(Pet.PetId), fc.integer({ min: 1, max: 1_000 })],
      ([ds, candidate, beyond]) =>
        withRepo((repo) =>
          Effect.gen(function*() {
            const pets = yield* insertAll(repo, ds)
            const assigned = new Set<number>(pets.map((p) => p.id))
            const last = pets.length === 0 ? 0 : pets[pets.length - 1]!.id
            for (const id of [candidate, last + beyond]) {
              if (assigned.has(id) || !Schema.is(Pet.PetId)(id)) continue
              expect(Option.isNone(yield* repo.findById(id))).toBe(true)
            }
          })
        ),
      runs
    )

    property(
      "listAfter returns, by ascending id, the first `limit` pets with id > afterId and the requested status",
      [drafts(30), fc.nat(), fc.integer({ min: 1, max: 40 }), statusFilter],
      ([ds, cut, limit, status]) =>
        withRepo((repo) =>
          Effect.gen(function*() {
            const pets = yield* insertAll(repo, ds)
            // afterId: 0, an assigned id, or one past the last.
            const candidates = [0, ...pets.map((p) => p.id), (pets.at(-1)?.id ?? 0) + 1]
            const afterId = candidates[cut % candidates.length]!
            const page = yield* repo.listAfter({ afterId, limit, status })
            const expected = pets.filter((p) => p.id > afterId && matches(status)(p)).slice(0, limit)
            expect(page.map(plain)).toStrictEqual(expected.map(plain))
          })
        ),
      runs
    )

    property(
      "paging with listAfter from 0 to the end visits every pet exactly once, also when pets are inserted between pages",
      [drafts(15), fc.array(drafts(4), { maxLength: 8 }), fc.integer({ min: 1, max: 6 }), statusFilter],
      ([initial, batches, limit, status]) =>
        withRepo((repo) =>
          Effect.gen(function*() {
            const inserted = [...yield* insertAll(repo, initial)]
            const visited: Array<Pet.Pet> = []
            let afterId = 0
            const pending = [...batches]
            while (true) {
              const page = yield* repo.listAfter({ afterId, limit, status })
              expect(page.length).toBeLessThanOrEqual(limit)
              visited.push(...page)
              if (page.length > 0) afterId = page[page.length - 1]!.id
              const batch = pending.shift()
              if (batch !== undefined) inserted.push(...yield* insertAll(repo, batch))
              else if (page.length < limit) break
            }
            expect(visited.map(plain)).toStrictEqual(inserted.filter(matches(status)).map(plain))
          })
        ),
      runs
    )
  })
}
