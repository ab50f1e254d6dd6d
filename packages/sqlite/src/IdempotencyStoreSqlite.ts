/**
 * `IdempotencyStore` on SQLite. A keyed create is one write of the group commit: it reads the key's
 * record, and when there is no live one inserts the pet or message and the record, all in the
 * batch's transaction. Writes of a batch run one after the other on the one connection, so of two
 * creates with one key in the same batch the second sees the first's record; a crash before COMMIT
 * leaves neither the resource nor the record.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { IdempotencyStore, type Pet, StoreRows } from "@petstore/core"
import { Connection } from "./Connection.js"
import { Database } from "./GroupCommit.js"
import { insertMessageStatement, messageValues } from "./MessageStoreSqlite.js"

const COLUMNS = "account_id, key, operation, fingerprint, resource_id, created_at, expires_at"

/** @category constructors */
export const make: Effect.Effect<IdempotencyStore.IdempotencyStore["Type"], never, Connection | Database> = Effect.gen(function*() {
  const connection = yield* Connection
  const db = yield* Database
  const live = connection.prepare(`SELECT ${COLUMNS} FROM idempotency_keys WHERE account_id = ? AND key = ? AND expires_at > ?`)
  // An expired record of the key is replaced: the key is new again.
  const record = connection.prepare(`INSERT OR REPLACE INTO idempotency_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)`)
  const insertPet = connection.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
  const insertMessage = insertMessageStatement(connection)
  const sweep = connection.prepare(
    "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)"
  )

  const find = (request: IdempotencyStore.KeyedRequest) =>
    live.get(request.accountId, request.key, request.now) as StoreRows.IdempotencyRow | undefined
  const keep = (request: IdempotencyStore.KeyedRequest, resourceId: string) =>
    record.run(request.accountId, request.key, request.operation, request.fingerprint, resourceId, request.now, request.expiresAt)

  /** In the batch: the live record, or the resource written by `create` and its record. */
  const claim = <A>(request: IdempotencyStore.KeyedRequest, create: () => readonly [A, string]) =>
    db.write((): IdempotencyStore.Claim<A> => {
      const found = find(request)
      if (found !== undefined) return { _tag: "Completed", record: StoreRows.toIdempotencyRecord(found) }
      const [value, resourceId] = create()
      keep(request, resourceId)
      return { _tag: "Created", value }
    })

  return IdempotencyStore.IdempotencyStore.of({
    find: (accountId, key, now) =>
      db.read(() => Option.map(Option.fromNullable(live.get(accountId, key, now) as StoreRows.IdempotencyRow | undefined), StoreRows.toIdempotencyRecord)),
    insertPet: (request, draft) =>
      claim(request, () => {
        const id = Number(insertPet.run(draft.name, draft.categoryId, draft.status).lastInsertRowid)
        return [{ id: id as Pet.PetId, name: draft.name, categoryId: draft.categoryId, status: draft.status }, String(id)] as const
      }),
    insertMessage: (request, message) =>
      claim(request, () => {
        insertMessage.run(...messageValues(message))
        return [message, message.id] as const
      }),
    sweep: (now, limit) => db.write(() => sweep.run(now, limit).changes)
  })
})

/** @category layers */
export const layer: Layer.Layer<IdempotencyStore.IdempotencyStore, never, Connection | Database> = Layer.effect(
  IdempotencyStore.IdempotencyStore,
  make
)
