/**
 * Reads everything a SQLite file holds as a `StoreSnapshot` (to move it into another store), in
 * one read transaction, so the snapshot is consistent even while a server writes the file.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { AccountStore, MessageStore, Pet, StoreSnapshot } from "@petstore/core"
import { ACCOUNT_COLUMNS, accountOf, KEY_COLUMNS } from "./AccountStoreSqlite.js"
import { Connection, DatabaseOpenError, explain } from "./Connection.js"
import { QUOTA_COLUMNS, quotasOf, STANDING_COLUMNS, standingsOf } from "./LimiterStateStoreSqlite.js"
import { MESSAGE_COLUMNS } from "./MessageStoreSqlite.js"
import { PET_COLUMNS, readPets } from "./PetRepositorySqlite.js"

/** Everything the database holds, as a snapshot. @category constructors */
export const snapshot: Effect.Effect<StoreSnapshot.StoreSnapshot, DatabaseOpenError, Connection> = Effect.flatMap(
  Connection,
  (connection) =>
    Effect.try({
      try: () => {
        const all = <R = unknown>(source: string) => connection.prepare(source).all() as Array<R>
        connection.exec("BEGIN")
        try {
          const accounts = all(`SELECT ${ACCOUNT_COLUMNS} FROM accounts ORDER BY created_at, id`).map(accountOf)
          const keys = all<AccountStore.KeyRecord>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`)
          const pets = readPets(all<Pet.Pet>(`SELECT ${PET_COLUMNS} FROM pets ORDER BY id`))
          const messages = all<MessageStore.StoredMessage>(`SELECT ${MESSAGE_COLUMNS} FROM messages ORDER BY seq`)
          const quotas = quotasOf(all(`SELECT ${QUOTA_COLUMNS} FROM limiter_quotas`))
          const standings = standingsOf(all(`SELECT ${STANDING_COLUMNS} FROM limiter_standings`))
          const secret = connection.prepare("SELECT value FROM secrets WHERE name = 'cursor-hmac'").pluck().get() as
            | Uint8Array
            | undefined
          return {
            accounts,
            keys,
            pets,
            messages,
            limiter: { quotas, standings },
            cursorSecret: secret === undefined ? undefined : new Uint8Array(secret)
          }
        } finally {
          connection.exec("COMMIT")
        }
      },
      catch: (cause) =>
        new DatabaseOpenError({ filename: connection.filename, message: explain(connection.filename, cause), cause })
    })
)
