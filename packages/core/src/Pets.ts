/**
 * The pet operations of the interface: add, list a page, get one.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as BoundedCache from "./BoundedCache.js"
import { InvalidCursor, PetNotFound, type StoreUnavailable } from "./Errors.js"
import { CursorSigner } from "./PageCursor.js"
import type { NewPet, Pet, PetId, PetStatus } from "./Pet.js"
import { draftOf, PetRepository } from "./PetRepository.js"

/** How many full pages are kept in memory (the cache starts over beyond). */
const FULL_PAGES_KEPT = 4096
/** How many bytes of full pages are kept in memory, by `pageBytes`'s estimate (32 MiB). */
export const DEFAULT_FULL_PAGE_BYTES = 32 * 1024 * 1024

/**
 * What a kept page costs in memory, estimated: each pet as an object (about 150 bytes with its
 * strings' headers), its name in memory (2 bytes a UTF-16 unit) and in the page's JSON text that an
 * adapter keeps beside it (up to 3 bytes a unit, with the fields' ~80 bytes), and the cursor.
 */
export const pageBytes = (page: Page): number => {
  let bytes = 200 + (Option.isSome(page.next) ? 2 * page.next.value.length : 0)
  for (const pet of page.pets) bytes += 230 + 5 * pet.name.length
  return bytes
}

/** How many pages the pets service keeps, and for how long. */
export interface PetsOptions {
  /** The most bytes of full pages kept in memory (by `pageBytes`), besides their number (default 32 MiB). */
  readonly fullPageBytes?: number | undefined
}

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

/** The pets service: create, read and page through animals. @category services */
export class Pets extends Context.Service<
  Pets,
  {
    readonly create: (input: NewPet) => Effect.Effect<Pet, StoreUnavailable>
    readonly list: (request: PageRequest) => Effect.Effect<Page, InvalidCursor | StoreUnavailable>
    readonly get: (id: PetId) => Effect.Effect<Pet, PetNotFound | StoreUnavailable>
  }
>()("@petstore/core/Pets") {
  /** The service over its ports, with its page cache bounded as `options` say. */
  static readonly layerWith = (options: PetsOptions) => Layer.effect(
    Pets,
    Effect.gen(function*() {
      const repo = yield* PetRepository
      const cursors = yield* CursorSigner
      // Full pages (one with a next cursor) by position, status filter and limit. A pet created later
      // always gets a higher id (the repository's contract), so a full page changes only when a pet
      // on it changes: none does today, and the repository announces any that would (`onChange`),
      // which empties the cache. The same Page object is answered again, which also lets an adapter
      // keep its encoding. Entries are also dropped when the cache starts over: past 4,096 pages, or
      // past the byte budget (4,096 pages of 100 long names would otherwise hold hundreds of MB).
      const fullPages = BoundedCache.make<string, Page>(FULL_PAGES_KEPT, {
        budget: options.fullPageBytes ?? DEFAULT_FULL_PAGE_BYTES,
        weigh: pageBytes
      })
      // Moves at every announced change: a page read while one happened is answered, not kept (its
      // rows may be from before the change, read after the cache was emptied).
      let generation = 0
      yield* repo.onChange(() => {
        generation++
        fullPages.clear()
      })
      return Pets.of({
        create: (input) => repo.insert(draftOf(input)),
        list: ({ cursor, limit, status }) => {
          let afterId = 0
          if (Option.isSome(cursor)) {
            const position = cursors.decode(cursor.value)
            if (Result.isFailure(position)) return Effect.fail(position.failure)
            if (!Option.makeEquivalence<string>((a, b) => a === b)(position.success.status, status)) {
              return Effect.fail(new InvalidCursor({ reason: "cursor was issued for a different status filter" }))
            }
            afterId = position.success.afterId
          }
          const key = `${afterId}.${Option.isSome(status) ? status.value : ""}.${limit}`
          const kept = fullPages.get(key)
          if (kept !== undefined) return Effect.succeed(kept)
          // One extra row tells whether a next page exists, so a page with a next link is always full.
          const before = generation
          return Effect.map(repo.listAfter({ afterId, status, limit: limit + 1 }), (rows): Page => {
            if (rows.length <= limit) return { pets: rows, next: Option.none() }
            const pets = rows.slice(0, limit)
            const page: Page = { pets, next: Option.some(cursors.encode({ afterId: pets[pets.length - 1]!.id, status })) }
            if (generation === before) fullPages.set(key, page)
            return page
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

  /** The service over its ports, with the default page cache. */
  static readonly layer = Pets.layerWith({})
}
