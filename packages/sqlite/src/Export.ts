/**
 * Reads everything a SQLite file holds as a `StoreSnapshot` (to move it into another store), in
 * one read transaction, so the snapshot is consistent even while a server writes the file.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import { type Pet, StoreRows, type StoreSnapshot } from "@petstore/core"
import { Connection, DatabaseOpenError, explain } from "./Connection.js"
import { PET_COLUMNS, readPets } from "./PetRepositorySqlite.js"

/** @category constructors */
export const snapshot: Effect.Effect<StoreSnapshot.StoreSnapshot, DatabaseOpenError, Connection> = Effect.flatMap(
  Connection,
  (connection) =>
    Effect.try({
      try: () => {
        const all = <R>(source: string) => connection.prepare(source).all() as Array<R>
        connection.exec("BEGIN")
        try {
          const accounts = all<StoreRows.AccountRow>(
            "SELECT id, plan, per_minute, per_day, created_at FROM accounts ORDER BY created_at, id"
          ).map(StoreRows.toAccount)
          const keys = all<StoreRows.KeyRow>(
            `SELECT ${StoreRows.KEY_COLUMNS} FROM api_keys ORDER BY created_at, id`
          ).map(StoreRows.toKey)
          const pets = readPets(all<Pet.Pet>(`SELECT ${PET_COLUMNS} FROM pets ORDER BY id`))
          const messages = all<StoreRows.MessageRow>(
            `SELECT id, account_id, message, status, created_at, updated_at, attempts, available_at, lease_until, last_error
             FROM messages ORDER BY seq`
          ).map(StoreRows.toStoredMessage)
          const quotas = all<StoreRows.QuotaRow>("SELECT account_id, day, used FROM limiter_quotas").map(StoreRows.toQuota)
          const standings = all<StoreRows.StandingRow>(
            "SELECT key_id, wait_until, strikes, banned_until, bans, last_ban_at FROM limiter_standings"
          ).map(StoreRows.toStanding)
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
