/**
 * `IdempotencyStore` on SQLite. A keyed create is one write of the group commit: it inserts the pet
 * or message, then the key's record, taking over an expired one (`ON CONFLICT … DO UPDATE … WHERE`
 * expired), all in the batch's transaction. When the key has a live record the record's insert
 * changes nothing: the resource just inserted is deleted again and the live record answered. So a
 * first request (the usual case) costs the two inserts and no look-up; a retry pays for the
 * look-up and the delete. Writes of a batch run one after the other on the one connection, so of
 * two creates with one key in the same batch the second sees the first's record; a crash before
 * COMMIT leaves neither the resource nor the record.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { IdempotencyStore } from "@petstore/core"
import * as Columns from "./internal/columns.js"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"
import { insertMessageStatement, messageValues } from "./MessageStoreSqlite.js"
import { petInsert } from "./PetRepositorySqlite.js"

/** The columns of `idempotency_keys`, each with the `IdempotencyRecord` field it holds. */
const RECORD_FIELDS: ReadonlyArray<Columns.Column<IdempotencyStore.IdempotencyRecord>> = [
  ["account_id", "accountId"],
  ["key", "key"],
  ["operation", "operation"],
  ["fingerprint", "fingerprint"],
  ["resource_id", "resourceId"],
  ["created_at", "createdAt"],
  ["expires_at", "expiresAt"]
]

/** The idempotency store on SQLite. @category constructors */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStore["Service"], never, Connection | Database> = Effect.gen(function*() {
  const connection = yield* Connection
  const db = yield* Database
  const live = connection.prepare(`SELECT ${Columns.selectList(RECORD_FIELDS)} FROM idempotency_keys WHERE account_id = ? AND key = ? AND expires_at > ?`)
  // The key's record, unless it has a live one (then nothing changes); an expired record of the key
  // is taken over: the key is new again.
  const record = connection.prepare(
    `INSERT INTO idempotency_keys (${Columns.names(RECORD_FIELDS)}) VALUES (${Columns.placeholders(RECORD_FIELDS)})
     ON CONFLICT (account_id, key) DO UPDATE SET operation = excluded.operation, fingerprint = excluded.fingerprint,
       resource_id = excluded.resource_id, created_at = excluded.created_at, expires_at = excluded.expires_at
     WHERE idempotency_keys.expires_at <= excluded.created_at`
  )
  const insertPet = petInsert(connection)
  const deletePet = connection.prepare("DELETE FROM pets WHERE id = ?")
  const insertMessage = insertMessageStatement(connection)
  const deleteMessage = connection.prepare("DELETE FROM messages WHERE id = ?")
  const sweep = connection.prepare(
    "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)"
  )

  const find = (request: IdempotencyStore.KeyedRequest) =>
    live.get(request.accountId, request.key, request.now) as IdempotencyStore.IdempotencyRecord | undefined
  /** Writes the key's record naming `resourceId`; false when the key has a live record (nothing written). */
  const keep = (request: IdempotencyStore.KeyedRequest, resourceId: string): boolean =>
    record.run(...Columns.values(RECORD_FIELDS, IdempotencyStore.toRecord(request, resourceId)))
      .changes === 1

  /**
   * In the batch: the resource written by `create` and its record; or, when the key has a live
   * record, that record, and the resource is removed again by `remove`.
   */
  const claim = <A>(request: IdempotencyStore.KeyedRequest, create: () => readonly [A, string], remove: (value: A) => void) =>
    db.write((): IdempotencyStore.Claim<A> => {
      const [value, resourceId] = create()
      if (keep(request, resourceId)) return { _tag: "Created", value }
      remove(value)
      const found = find(request)
      // Refused by a live record that is gone when looked at: impossible inside one transaction;
      // thrown, the write is undone and fails alone.
      if (found === undefined) throw new Error(`the live record of an idempotency key could not be read`)
      return { _tag: "Completed", record: found }
    })

  return IdempotencyStore.IdempotencyStore.of({
    find: (accountId, key, now) =>
      db.read(() => Option.fromNullishOr(live.get(accountId, key, now) as IdempotencyStore.IdempotencyRecord | undefined)),
    insertPet: (request, draft) =>
      claim(request, () => {
        const pet = insertPet(draft)
        return [pet, String(pet.id)] as const
      }, (pet) => deletePet.run(pet.id)),
    insertMessage: (request, message) =>
      claim(request, () => {
        insertMessage.run(...messageValues(message))
        return [message, message.id] as const
      }, (message) => deleteMessage.run(message.id)),
    sweep: (now, limit) => db.write(() => sweep.run(now, limit).changes)
  })
})

/** The idempotency store on SQLite, as a layer. @category layers */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, Connection | Database> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)
