/**
 * Storage of the answers of keyed creates (`Idempotency-Key`). A store writes a created pet or
 * message and the record of its key in one transaction, so a crash leaves both or neither; and a
 * key is claimed once per account: of two creates with one key, one writes and the other is handed
 * the record the first wrote (or, while the first is still being written, told so). Adapters
 * (memory, SQLite, PostgreSQL) implement this port; the testkit's idempotency laws check each one.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "./Errors.js"
import type { IdempotencyKey } from "./IdempotencyKey.js"
import type { MessageStore, StoredMessage } from "./MessageStore.js"
import type { Pet, PetId } from "./Pet.js"
import { type PetDraft, PetRepository } from "./PetRepository.js"
import { MessageStore as MessageStoreTag } from "./MessageStore.js"

/** The operations a key can be used on. */
export type KeyedOperation = "createPet" | "createMessage"

/** A create under a key: whose key, bound to which fingerprint, and how long its record lives. Times are epoch ms. */
export interface KeyedRequest {
  readonly accountId: string
  readonly key: IdempotencyKey
  readonly operation: KeyedOperation
  /** `IdempotencyFingerprint.of(operation, input)`. */
  readonly fingerprint: string
  readonly now: number
  /** The record is live until this instant (exclusive); after it the key is new again. */
  readonly expiresAt: number
}

/**
 * A completed keyed create: what it created. The answer is that resource's first answer (a pet
 * never changes; a message's first answer is rebuilt from its stored submission), so the record
 * keeps the resource's id, not a copy of the bytes.
 */
export interface IdempotencyRecord {
  readonly accountId: string
  readonly key: IdempotencyKey
  readonly operation: KeyedOperation
  readonly fingerprint: string
  /** The id of the pet or message created. */
  readonly resourceId: string
  readonly createdAt: number
  readonly expiresAt: number
}

/**
 * What a keyed insert did: `Created` it wrote the resource and the record; `Completed` a live
 * record of the key already existed and nothing was written; `InProgress` another create holds the
 * key and has not finished.
 */
export type Claim<A> =
  | { readonly _tag: "Created"; readonly value: A }
  | { readonly _tag: "Completed"; readonly record: IdempotencyRecord }
  | { readonly _tag: "InProgress" }

/** How many expired records one sweep statement removes at most. */
export const SWEEP_BATCH = 1_000

/** The port of the keyed creates' records, which each store implements. @category services */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    /** The live record (`expiresAt > now`) of `key` of `accountId`, if any; expired records are never answered. */
    readonly find: (accountId: string, key: IdempotencyKey, now: number) => Effect.Effect<Option.Option<IdempotencyRecord>, StoreUnavailable>
    /** Stores the pet and the key's record together, unless the key has a live record or is being written. */
    readonly insertPet: (request: KeyedRequest, draft: PetDraft) => Effect.Effect<Claim<Pet>, StoreUnavailable>
    /** Stores the message and the key's record together, unless the key has a live record or is being written. */
    readonly insertMessage: (request: KeyedRequest, message: StoredMessage) => Effect.Effect<Claim<StoredMessage>, StoreUnavailable>
    /** Removes up to `limit` records expired at `now`; answers how many it removed. */
    readonly sweep: (now: number, limit: number) => Effect.Effect<number, StoreUnavailable>
  }
>()("@petstore/core/IdempotencyStore") {
  /** Records in process memory, next to the memory pet and message stores it writes through. */
  static readonly layerMemory: Layer.Layer<IdempotencyStore, never, PetRepository | MessageStore> = Layer.effect(
    IdempotencyStore,
    Effect.map(Effect.all([PetRepository, MessageStoreTag]), ([pets, messages]) => makeMemory(pets, messages))
  )
}

/** The key of a record in a map: account and key, length-prefixed so no two pairs collide. */
export const recordKey = (accountId: string, key: string): string => `${accountId.length}:${accountId}${key}`

const IN_PROGRESS = { _tag: "InProgress" } as const

const isInProgress = (entry: IdempotencyRecord | typeof IN_PROGRESS): entry is typeof IN_PROGRESS => entry === IN_PROGRESS

/**
 * A store in process memory over `pets` and `messages`. The key is marked in progress before the
 * resource is written and its record set once the write succeeded (removed if it failed), so the
 * pair is written as one step as far as any other request can see.
 *
 * @category constructors
 */
export const makeMemory = (pets: PetRepository["Service"], messages: MessageStore["Service"]): IdempotencyStore["Service"] => {
  const records = new Map<string, IdempotencyRecord | typeof IN_PROGRESS>()
  const live = (id: string, now: number): IdempotencyRecord | typeof IN_PROGRESS | undefined => {
    const found = records.get(id)
    if (found === undefined || isInProgress(found) || found.expiresAt > now) return found
    records.delete(id)
    return undefined
  }
  const insert = <A>(request: KeyedRequest, write: Effect.Effect<A, StoreUnavailable>, idOf: (a: A) => string) =>
    Effect.suspend((): Effect.Effect<Claim<A>, StoreUnavailable> => {
      const id = recordKey(request.accountId, request.key)
      const found = live(id, request.now)
      if (found !== undefined) return Effect.succeed(isInProgress(found) ? IN_PROGRESS : { _tag: "Completed", record: found })
      records.set(id, IN_PROGRESS)
      return write.pipe(
        Effect.map((value): Claim<A> => {
          records.set(id, toRecord(request, idOf(value)))
          return { _tag: "Created", value }
        }),
        Effect.onExit((exit) => Effect.sync(() => exit._tag === "Failure" && void records.delete(id)))
      )
    })
  return {
    find: (accountId, key, now) =>
      Effect.sync(() => {
        const found = live(recordKey(accountId, key), now)
        return found === undefined || isInProgress(found) ? Option.none() : Option.some(found)
      }),
    insertPet: (request, draft) => insert(request, pets.insert(draft), (pet) => String(pet.id)),
    insertMessage: (request, message) => insert(request, Effect.as(messages.insert(message), message), (m) => m.id),
    sweep: (now, limit) =>
      Effect.sync(() => {
        let removed = 0
        for (const [id, record] of records) {
          if (removed >= limit) break
          if (!isInProgress(record) && record.expiresAt <= now) {
            records.delete(id)
            removed++
          }
        }
        return removed
      })
  }
}

/** The record a keyed create writes for the resource it created. */
export const toRecord = (request: KeyedRequest, resourceId: string): IdempotencyRecord => ({
  accountId: request.accountId,
  key: request.key,
  operation: request.operation,
  fingerprint: request.fingerprint,
  resourceId,
  createdAt: request.now,
  expiresAt: request.expiresAt
})

/** The pet id a record of `createPet` names. */
export const petIdOf = (record: IdempotencyRecord): PetId => Number(record.resourceId) as PetId
