/**
 * Laws of the `Pets` service (listing, cursors, defaults) over any `PetRepository`.
 *
 * @since 1.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { PageCursor, Pet, PetRepository, Pets } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { isStrictlyIncreasing, petName, numRuns, plain, property } from "./internal/support.js"

type Service = Pets.Pets["Service"]

const SECRET = new Uint8Array(32).map((_, i) => i + 1)

const newPet: fc.Arbitrary<Pet.NewPet> = fc.tuple(fromSchema(Pet.NewPet), petName).map(([p, name]) => ({ ...p, name }))
const newPets = (maxLength: number) => fc.array(newPet, { maxLength })
const status = fromSchema(Pet.PetStatus)
const statusFilter = fc.option(status, { nil: undefined }).map(Option.fromNullishOr)
const limit = fc.integer({ min: 1, max: 6 })

const createAll = (pets: Service, ps: ReadonlyArray<Pet.NewPet>) => Effect.forEach(ps, (p) => pets.create(p))

const matches = (filter: Option.Option<Pet.PetStatus>) => (pet: Pet.Pet) =>
  Option.isNone(filter) || pet.status === filter.value

/** Follows next cursors to the end; `between` runs after each page that has a next cursor. */
const pageAll = <E, R>(
  pets: Service,
  request: { readonly limit: number; readonly status: Option.Option<Pet.PetStatus> },
  between: (pageNumber: number) => Effect.Effect<void, E, R>
) =>
  Effect.gen(function*() {
    const pages: Array<Pets.Page> = []
    let cursor = Option.none<string>()
    while (true) {
      const page = yield* pets.list({ ...request, cursor })
      pages.push(page)
      if (Option.isNone(page.next)) return pages
      yield* between(pages.length)
      cursor = page.next
    }
  })

/** Characters base64url decoders tend to skip or fold, and any other. */
const cursorChar = fc.oneof(
  fc.constantFrom("=", "!", " ", ".", "+", "/", "-", "_", "A", "B", "Q", "g", "w"),
  fc.string({ minLength: 1, maxLength: 1 })
)

/** Positions, biased towards the start, where the encoded position lies. */
const position = fc.oneof(fc.nat({ max: 6 }), fc.nat())

interface Alteration {
  readonly kind: "replace" | "insert" | "remove" | "pad" | "append"
  readonly at: number
  readonly char: string
}

/** A token with one edit: a character replaced, inserted or removed, padding added, or text appended. */
const alteration: fc.Arbitrary<Alteration> = fc.oneof(
  fc.record({ kind: fc.constant("replace" as const), at: position, char: cursorChar }),
  fc.record({ kind: fc.constant("insert" as const), at: position, char: cursorChar }),
  fc.record({ kind: fc.constant("remove" as const), at: position, char: fc.constant("") }),
  fc.record({ kind: fc.constant("pad" as const), at: fc.constant(0), char: fc.constantFrom("=", "==", " ", "\n", "!") }),
  fc.record({ kind: fc.constant("append" as const), at: fc.constant(0), char: fc.string({ minLength: 1, maxLength: 3 }) })
)
const alter = (token: string, edit: Alteration): string => {
  const at = edit.at % token.length
  switch (edit.kind) {
    case "replace":
      return token.slice(0, at) + edit.char + token.slice(at + 1)
    case "insert":
      return token.slice(0, at) + edit.char + token.slice(at)
    case "remove":
      return token.slice(0, at) + token.slice(at + 1)
    case "pad": {
      const dot = token.indexOf(".")
      return token.slice(0, dot) + edit.char + token.slice(dot)
    }
    case "append":
      return token + edit.char
  }
}

/**
 * `repository` with a way to change a stored pet's name, as an operation that changes pets would:
 * the new name is what every read answers from then on, and the change is announced through
 * `onChange` when `announce` is true (a change that is not announced is the fault the page-cache
 * law catches).
 */
export const renaming = (repository: PetRepository.PetRepository["Service"]): {
  readonly repository: PetRepository.PetRepository["Service"]
  readonly rename: (id: Pet.PetId, name: string, announce?: boolean) => void
} => {
  const renamed = new Map<number, string>()
  const changes = PetRepository.changeListeners()
  const current = (pet: Pet.Pet): Pet.Pet => {
    const name = renamed.get(pet.id)
    return name === undefined ? pet : { ...pet, name }
  }
  const changed: PetRepository.PetRepository["Service"] = {
    insert: repository.insert,
    listAfter: (query) => Effect.map(repository.listAfter(query), (rows) => rows.map(current)),
    findById: (id) => Effect.map(repository.findById(id), Option.map(current)),
    onChange: (listener) => Effect.andThen(repository.onChange(listener), changes.onChange(listener))
  }
  const rename = (id: Pet.PetId, name: string, announce = true) => {
    renamed.set(id, name)
    if (announce) changes.announce(id)
  }
  return { repository: changed, rename }
}

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<PetRepository.PetRepository, E>,
  options?: LawSuiteOptions
) => {
  const service = Pets.Pets.layer.pipe(Layer.provide(PageCursor.CursorSigner.fromSecret(SECRET)), Layer.provide(layer))
  const withPets = <A, E2>(f: (pets: Service) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(Pets.Pets, f), service)
  const runs = numRuns(options)

  /** Two pets with the status of `filter` (or the default), and the next cursor of a first page of one. */
  const withCursor = <A, E2>(
    filter: Option.Option<Pet.PetStatus>,
    f: (pets: Service, cursor: string) => Effect.Effect<A, E2>
  ) =>
    withPets((pets) =>
      Effect.gen(function*() {
        const template = { name: "Rex", categoryId: 1 as Pet.CategoryId }
        const input = Option.match(filter, { onNone: () => template, onSome: (s) => ({ ...template, status: s }) })
        yield* createAll(pets, [input, input])
        const first = yield* pets.list({ limit: 1, status: filter, cursor: Option.none() })
        return yield* f(pets, Option.getOrThrow(first.next))
      })
    )
  return { name, layer, options, service, withPets, runs, withCursor }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Pets created, read and changed. */
const petLaws = <E>({ layer, withPets, runs }: Suite<E>): void => {
  property(
    "a page served after the repository announces a change to one of its pets shows the change (the page cache's premise)",
    [newPets(12), limit, statusFilter, fc.array(fc.tuple(fc.nat(), petName), { minLength: 1, maxLength: 4 })],
    ([ps, size, filter, renames]) =>
      Effect.gen(function*() {
        const changing = renaming(yield* PetRepository.PetRepository)
        const pets = yield* Effect.provide(
          Pets.Pets,
          Pets.Pets.layer.pipe(
            Layer.provide(PageCursor.CursorSigner.fromSecret(SECRET)),
            Layer.provide(Layer.succeed(PetRepository.PetRepository, changing.repository))
          )
        )
        const created = yield* createAll(pets, ps)
        const read = Effect.map(pageAll(pets, { limit: size, status: filter }, () => Effect.void), (pages) =>
          pages.flatMap((page) => page.pets).map(plain))
        yield* read // every full page is now kept
        const expected = new Map(created.map((pet) => [pet.id, plain(pet)]))
        for (const [n, newName] of renames) {
          if (created.length === 0) break
          const pet = created[n % created.length]!
          changing.rename(pet.id, newName)
          expected.set(pet.id, { ...expected.get(pet.id)!, name: newName })
        }
        expect(yield* read).toStrictEqual([...expected.values()].filter(matches(filter)))
      }).pipe(Effect.provide(layer)),
    runs
  )

  property("create returns the pet with an assigned id, and get returns it; status defaults to available", [newPets(10)], ([ps]) =>
    withPets((pets) =>
      Effect.gen(function*() {
        const created = yield* createAll(pets, ps)
        for (const [i, pet] of created.entries()) {
          const input = ps[i]!
          expect(plain(pet)).toStrictEqual({
            id: pet.id,
            name: input.name,
            categoryId: input.categoryId,
            status: input.status ?? "available"
          })
          expect(plain(yield* pets.get(pet.id))).toStrictEqual(plain(pet))
        }
        const available = yield* pageAll(pets, { limit: 100, status: Option.some("available") }, () => Effect.void)
        const listed = new Set(available.flatMap((page) => page.pets.map((p) => p.id)))
        for (const [i, pet] of created.entries()) {
          if (ps[i]!.status === undefined) expect(listed.has(pet.id)).toBe(true)
        }
      })
    ), runs)

  property("get of an unknown id fails with PetNotFound", [newPets(5), fromSchema(Pet.PetId)], ([ps, id]) =>
    withPets((pets) =>
      Effect.gen(function*() {
        const created = yield* createAll(pets, ps)
        if (created.some((p) => p.id === id)) return
        const error = yield* Effect.flip(pets.get(id))
        expect(error).toMatchObject({ _tag: "PetNotFound", id })
      })
    ), runs)
}

/** Paging: next cursors, every pet once in id order, pages stable under creates. */
const pagingLaws = <E>({ withPets, runs }: Suite<E>): void => {
  property(
    "a page has a next cursor exactly when more pets follow, and a page with a next cursor is full",
    [newPets(20), limit, statusFilter],
    ([ps, size, filter]) =>
      withPets((pets) =>
        Effect.gen(function*() {
          const total = (yield* createAll(pets, ps)).filter(matches(filter)).length
          const pages = yield* pageAll(pets, { limit: size, status: filter }, () => Effect.void)
          let seen = 0
          for (const page of pages) {
            seen += page.pets.length
            expect(Option.isSome(page.next)).toBe(seen < total)
            if (Option.isSome(page.next)) expect(page.pets).toHaveLength(size)
          }
          expect(seen).toBe(total)
        })
      ),
    runs
  )

  property(
    "paging with next cursors visits every pet exactly once, by ascending id, also when pets are created between pages",
    [newPets(15), fc.array(newPets(4), { maxLength: 8 }), limit, statusFilter],
    ([initial, batches, size, filter]) =>
      withPets((pets) =>
        Effect.gen(function*() {
          const created = [...yield* createAll(pets, initial)]
          const pages = yield* pageAll(pets, { limit: size, status: filter }, (n) =>
            n <= batches.length
              ? Effect.map(createAll(pets, batches[n - 1]!), (ps) => void created.push(...ps))
              : Effect.void)
          const visited = pages.flatMap((page) => page.pets)
          expect(visited.map(plain)).toStrictEqual(created.filter(matches(filter)).map(plain))
        })
      ),
    runs
  )

  property(
    "paging concurrently with creates never repeats a pet, keeps id order, and visits every pet that existed before",
    [newPets(15), newPets(15), limit, statusFilter],
    ([initial, concurrent, size, filter]) =>
      withPets((pets) =>
        Effect.gen(function*() {
          const before = yield* createAll(pets, initial)
          const [pages, during] = yield* Effect.all([
            pageAll(pets, { limit: size, status: filter }, () => Effect.yieldNow),
            Effect.forEach(concurrent, (p) => Effect.tap(pets.create(p), () => Effect.yieldNow))
          ], { concurrency: "unbounded" })
          const visited = pages.flatMap((page) => page.pets.map((p) => p.id))
          expect(isStrictlyIncreasing(visited)).toBe(true)
          const existing = new Set<number>([...before, ...during].filter(matches(filter)).map((p) => p.id))
          for (const id of visited) expect(existing.has(id)).toBe(true)
          const seen = new Set(visited)
          for (const pet of before.filter(matches(filter))) expect(seen.has(pet.id)).toBe(true)
        })
      ),
    runs
  )

  property(
    "a page asked again after more creates is the same page when it was full, and grows only at the end otherwise",
    [newPets(12), newPets(8), limit, statusFilter],
    ([initial, later, size, filter]) =>
      withPets((pets) =>
        Effect.gen(function*() {
          yield* createAll(pets, initial)
          const before = yield* pageAll(pets, { limit: size, status: filter }, () => Effect.void)
          yield* createAll(pets, later)
          let cursor = Option.none<string>()
          for (const page of before) {
            const again = yield* pets.list({ limit: size, status: filter, cursor })
            if (Option.isSome(page.next)) {
              expect(again.pets.map(plain)).toStrictEqual(page.pets.map(plain))
              expect(again.next).toStrictEqual(page.next)
            } else {
              expect(again.pets.slice(0, page.pets.length).map(plain)).toStrictEqual(page.pets.map(plain))
            }
            cursor = page.next
          }
        })
      ),
    runs
  )
}

/** Cursors that are altered, forged or used with another filter are refused. */
const cursorLaws = <E>({ runs, withCursor }: Suite<E>): void => {
  property("an altered cursor fails with InvalidCursor", [statusFilter, alteration], ([filter, edit]) =>
    withCursor(filter, (pets, cursor) =>
      Effect.gen(function*() {
        const altered = alter(cursor, edit)
        if (altered === cursor) return
        const error = yield* Effect.flip(pets.list({ limit: 1, status: filter, cursor: Option.some(altered) }))
        expect(error._tag).toBe("InvalidCursor")
      })
    ), runs)

  property(
    "a forged cursor (any text, or a well-formed cursor signed with another secret) fails with InvalidCursor",
    [statusFilter, fc.string({ maxLength: 200 }), fc.nat(), fc.uint8Array({ minLength: 16, maxLength: 32 })],
    ([filter, forged, afterId, otherSecret]) =>
      withCursor(filter, (pets, cursor) =>
        Effect.gen(function*() {
          const signed = PageCursor.make(otherSecret).encode({ afterId, status: filter })
          for (const token of [forged, signed]) {
            if (token === cursor || PageCursor.make(SECRET).encode({ afterId, status: filter }) === token) continue
            const error = yield* Effect.flip(pets.list({ limit: 1, status: filter, cursor: Option.some(token) }))
            expect(error._tag).toBe("InvalidCursor")
          }
        })
      ),
    runs
  )

  property(
    "a cursor used with another status filter fails with InvalidCursor",
    [statusFilter, statusFilter],
    ([issuedFor, usedWith]) =>
      withCursor(issuedFor, (pets, cursor) =>
        Effect.gen(function*() {
          if (Option.makeEquivalence<string>((a, b) => a === b)(issuedFor, usedWith)) return
          const error = yield* Effect.flip(pets.list({ limit: 1, status: usedWith, cursor: Option.some(cursor) }))
          expect(error._tag).toBe("InvalidCursor")
        })
      ),
    runs
  )
}

/**
 * Registers the laws of the `Pets` service running on the `PetRepository` that `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const petsServiceLaws = <E>(
  name: string,
  layer: Layer.Layer<PetRepository.PetRepository, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`Pets service laws: ${name}`, () => {
    petLaws(suite)
    pagingLaws(suite)
    cursorLaws(suite)
  })
}
