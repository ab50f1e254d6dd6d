/**
 * The page-cache law can fail: a repository that changes a pet without announcing it leaves the
 * `Pets` service serving the page it kept, which is what the law (`PetsLaws`) catches; announced,
 * the same change shows at once.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PageCursor, type Pet, PetRepository, Pets } from "@petstore/core"
import { renaming } from "../src/laws/PetsLaws.js"

const pages = (announce: boolean) =>
  Effect.gen(function*() {
    const changing = renaming(PetRepository.makeMemory())
    const pets = yield* Effect.provide(
      Pets.Pets,
      Pets.Pets.layer.pipe(
        Layer.provide(PageCursor.CursorSigner.fromSecret(new Uint8Array(32).fill(7))),
        Layer.provide(Layer.succeed(PetRepository.PetRepository, changing.repository))
      )
    )
    for (const name of ["Rex", "Tom", "Kit"]) yield* pets.create({ name, categoryId: 1 as Pet.CategoryId })
    const first = () => Effect.map(pets.list({ limit: 2, status: Option.none(), cursor: Option.none() }), (page) => page.pets.map((p) => p.name))
    expect(yield* first()).toStrictEqual(["Rex", "Tom"]) // a full page: kept
    changing.rename(1 as Pet.PetId, "Max", announce)
    return yield* first()
  })

describe("the page cache's premise", () => {
  it.effect("an announced change empties the kept pages: the next page shows it", () =>
    Effect.map(pages(true), (names) => expect(names).toStrictEqual(["Max", "Tom"])))

  it.effect("a change that is not announced leaves the kept page stale: the fault the Pets law fails on", () =>
    Effect.map(pages(false), (names) => expect(names).toStrictEqual(["Rex", "Tom"])))
})
