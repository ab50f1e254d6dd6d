/**
 * The pet operations of the interface: add, list a page, get one.
 *
 * @since 1.0.0
 */
import { Context, Effect, Either, Layer, Option } from "effect"
import { InvalidCursor, PetNotFound, type StoreUnavailable } from "./Errors.js"
import { CursorSigner } from "./PageCursor.js"
import { DEFAULT_PET_STATUS, type NewPet, type Pet, type PetId, type PetStatus } from "./Pet.js"
import { PetRepository } from "./PetRepository.js"

/** `limit` bounds of `GET /pets`. */
export const PAGE_LIMIT = { min: 1, max: 100, default: 20 } as const

/** A page request; `limit` is already validated (1..100). */
export interface PageRequest {
  readonly limit: number
  readonly status: Option.Option<PetStatus>
  readonly cursor: Option.Option<string>
}

/** A page: the pets, and a cursor exactly when more pets follow. */
export interface Page {
  readonly pets: ReadonlyArray<Pet>
  readonly next: Option.Option<string>
}

/** @category services */
export class Pets extends Context.Tag("@petstore/core/Pets")<
  Pets,
  {
    readonly create: (input: NewPet) => Effect.Effect<Pet, StoreUnavailable>
    readonly list: (request: PageRequest) => Effect.Effect<Page, InvalidCursor | StoreUnavailable>
    readonly get: (id: PetId) => Effect.Effect<Pet, PetNotFound | StoreUnavailable>
  }
>() {
  static readonly layer = Layer.effect(
    Pets,
    Effect.gen(function*() {
      const repo = yield* PetRepository
      const cursors = yield* CursorSigner
      return Pets.of({
        create: (input) =>
          repo.insert({ name: input.name, categoryId: input.categoryId, status: input.status ?? DEFAULT_PET_STATUS }),
        list: ({ cursor, limit, status }) => {
          let afterId = 0
          if (Option.isSome(cursor)) {
            const position = cursors.decode(cursor.value)
            if (Either.isLeft(position)) return Effect.fail(position.left)
            if (!Option.getEquivalence<string>((a, b) => a === b)(position.right.status, status)) {
              return Effect.fail(new InvalidCursor({ reason: "cursor was issued for a different status filter" }))
            }
            afterId = position.right.afterId
          }
          // One extra row tells whether a next page exists, so a page with a next link is always full.
          return Effect.map(repo.listAfter({ afterId, status, limit: limit + 1 }), (rows): Page => {
            if (rows.length <= limit) return { pets: rows, next: Option.none() }
            const pets = rows.slice(0, limit)
            return { pets, next: Option.some(cursors.encode({ afterId: pets[pets.length - 1]!.id, status })) }
          })
        },
        get: (id) =>
          Effect.flatMap(repo.findById(id), Option.match({
            onNone: () => Effect.fail(new PetNotFound({ id })),
            onSome: Effect.succeed
          }))
      })
    })
  )
}
