/**
 * Storage of pets. Adapters (memory, SQLite, ...) implement this interface; the law suites of the
 * testkit check every implementation.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "./Errors.js"
import { DEFAULT_PET_STATUS, NewPet, type Pet, type PetId, type PetStatus } from "./Pet.js"

/** A pet as it is stored: everything but the id, which the store assigns. */
export type PetDraft = Omit<Pet, "id">

/** The fields of a creation body, from its schema (read once): only these are stored. */
const DRAFT_FIELDS = Object.keys(NewPet.fields) as ReadonlyArray<keyof NewPet>

/**
 * What a creation body stores: its fields, with the defaults of those it leaves out. Keys the schema
 * does not name are left behind (an embedder may pass a wider object, such as a stored `Pet`, whose `id`
 * must not reach the store).
 */
export const draftOf = (input: NewPet): PetDraft => {
  const draft: Record<string, unknown> = {}
  for (const field of DRAFT_FIELDS) if (input[field] !== undefined) draft[field] = input[field]
  draft["status"] = input.status ?? DEFAULT_PET_STATUS
  return draft as PetDraft
}

/** The port of the animals, which each store implements. @category services */
export class PetRepository extends Context.Service<
  PetRepository,
  {
    /** Stores a pet under the next id (ids strictly increase in the order inserts are acknowledged). */
    readonly insert: (draft: PetDraft) => Effect.Effect<Pet, StoreUnavailable>
    /** Up to `limit` pets with id > `afterId`, optionally with the given status, by id ascending. */
    readonly listAfter: (query: {
      readonly afterId: number
      readonly status: Option.Option<PetStatus>
      readonly limit: number
    }) => Effect.Effect<ReadonlyArray<Pet>, StoreUnavailable>
    readonly findById: (id: PetId) => Effect.Effect<Option.Option<Pet>, StoreUnavailable>
    /**
     * Subscribes `listener` to the ids of stored pets an operation changes or removes, told once
     * the change is committed (`undefined`: any pet may have changed). No operation does today: a pet never changes once created, which is
     * the premise of the `Pets` page cache and of the replies kept with its pages. An operation that
     * changes pets announces each change here (`ChangeListeners.announce`); the testkit's `Pets` laws
     * fail when a page served after an announced change misses it.
     */
    readonly onChange: (listener: (id: PetId | undefined) => void) => Effect.Effect<void>
  }
>()("@petstore/core/PetRepository") {
  /** Pets in process memory: append-only arrays (all, and one per status), searched by binary search. */
  static readonly layerMemory = Layer.sync(PetRepository, () => makeMemory())
}

/**
 * The listeners of an adapter's changes: `onChange` subscribes, `announce` tells them all the id of
 * the pet that changed, or `undefined` when any may have (changes another instance made while its
 * notifications could not be heard).
 */
export interface ChangeListeners {
  readonly onChange: (listener: (id: PetId | undefined) => void) => Effect.Effect<void>
  readonly announce: (id?: PetId | undefined) => void
}

/** A new set of change listeners, for an adapter to announce its changes with. @category constructors */
export const changeListeners = (): ChangeListeners => {
  const listeners = new Set<(id: PetId | undefined) => void>()
  return {
    onChange: (listener) => Effect.sync(() => void listeners.add(listener)),
    announce: (id) => {
      for (const listener of listeners) listener(id)
    }
  }
}

const firstAfter = (pets: ReadonlyArray<Pet>, afterId: number): number => {
  let lo = 0
  let hi = pets.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (pets[mid]!.id <= afterId) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The animals in process memory. @category constructors */
export const makeMemory = (): PetRepository["Service"] => {
  const all: Array<Pet> = []
  const byStatus: Record<PetStatus, Array<Pet>> = { available: [], pending: [], sold: [] }
  let nextId = 1
  // Nothing here changes a stored pet, so nothing is announced.
  const changes = changeListeners()
  return {
    onChange: changes.onChange,
    insert: (draft) =>
      Effect.sync(() => {
        const pet: Pet = { id: nextId++ as PetId, ...draft }
        all.push(pet)
        byStatus[pet.status].push(pet)
        return pet
      }),
    listAfter: ({ afterId, limit, status }) =>
      Effect.sync(() => {
        const source = Option.isSome(status) ? byStatus[status.value] : all
        const start = firstAfter(source, afterId)
        return source.slice(start, start + limit)
      }),
    // Ids are given one by one from 1 and pets are never removed, so pet `id` is `all[id - 1]`: no
    // map from id to pet is kept.
    findById: (id) =>
      Effect.sync(() => {
        const pet = all[id - 1]
        return pet !== undefined && pet.id === id ? Option.some(pet) : Option.none()
      })
  }
}
