/**
 * Writes a `StoreSnapshot` (everything another store held) into an empty PostgreSQL database, in one
 * transaction: all of it or, on any failure, nothing. Pets keep their ids (new pets continue after
 * the highest), messages their state and submission order, keys their hashes, the limiter its daily
 * counts and bans, and cursors stay valid (the secret moves with them). A database that already
 * holds accounts, pets or messages is refused rather than merged.
 *
 * @since 1.0.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { Errors, StoreSnapshot } from "@petstore/core"
import { SECRET_NAME } from "./CursorSecretPg.js"
import { ADMIN_TIMEOUT, Database } from "./Database.js"
import * as Table from "./internal/table.js"
import { ACCOUNTS, KEYS } from "./AccountStorePg.js"
import { QUOTAS, STANDINGS } from "./LimiterStateStorePg.js"
import { MESSAGES } from "./MessageStorePg.js"
import { PETS } from "./PetRepositoryPg.js"
import * as PetIds from "./PetIds.js"
import * as Serving from "./Serving.js"

/** Instances serve the target database; nothing was written. */
export class TargetServed extends Data.TaggedError("TargetServed")<{ readonly message: string }> {}

/** The target database already holds data; nothing was written. */
export class TargetNotEmpty extends Data.TaggedError("TargetNotEmpty")<{ readonly message: string }> {}

class NotEmpty {
  constructor(readonly what: string) {}
}

class Served {
  constructor(readonly by: ReadonlyArray<string>) {}
}

/** Writes a snapshot (a SQLite export) into an empty PostgreSQL database. @category constructors */
export const importSnapshot = (
  snapshot: StoreSnapshot.StoreSnapshot
): Effect.Effect<void, TargetNotEmpty | TargetServed | Errors.StoreUnavailable, Database> =>
  Effect.flatMap(Database, (db) =>
    db.transaction(async (client) => {
      await client.query("SET LOCAL statement_timeout = 0")
      // Instances that serve the schema read its cursor secret at start: refuse rather than replace it under them.
      const { rows: [lock] } = await client.query<{ free: boolean }>(Serving.TRY_EXCLUSIVE)
      if (lock?.free !== true) return new Served(await Serving.holders(client))
      const { rows: [held] } = await client.query<{ accounts: boolean; pets: boolean; messages: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM accounts) AS accounts, EXISTS (SELECT 1 FROM pets) AS pets,
           EXISTS (SELECT 1 FROM messages) AS messages`
      )
      const what = Object.entries(held!).filter(([, v]) => v).map(([k]) => k)
      if (what.length > 0) return new NotEmpty(what.join(", "))
      await Table.insertAll(client, ACCOUNTS, snapshot.accounts)
      await Table.insertAll(client, KEYS, snapshot.keys)
      await Table.insertAll(client, PETS, snapshot.pets)
      // The next id above every imported one, in either mode (`PetIds`).
      await client.query("UPDATE pet_ids SET last = GREATEST(last, (SELECT coalesce(max(id), 0) FROM pets))")
      await client.query(PetIds.CONTINUE_SEQUENCE, [0])
      // In submission order, so `seq` keeps it.
      await Table.insertAll(client, MESSAGES, snapshot.messages)
      await client.query("DELETE FROM limiter_quotas")
      await client.query("DELETE FROM limiter_standings")
      await Table.insertAll(client, QUOTAS, snapshot.limiter.quotas)
      await Table.insertAll(client, STANDINGS, snapshot.limiter.standings)
      if (snapshot.cursorSecret !== undefined) {
        await client.query(
          "INSERT INTO secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
          [SECRET_NAME, Buffer.from(snapshot.cursorSecret)]
        )
      }
      return undefined
    }, ADMIN_TIMEOUT).pipe(
      Effect.flatMap((outcome): Effect.Effect<void, TargetNotEmpty | TargetServed> =>
        outcome instanceof Served
          ? Effect.fail(
            new TargetServed({
              message: `the PostgreSQL database is being served by ${outcome.by.length === 1 ? "an instance" : `${outcome.by.length} instances`}: ${
                outcome.by.join("; ")
              }; stop them before importing (an import replaces the page-cursor secret they read at start, so their clients' cursors would stop working)`
            })
          )
          : outcome instanceof NotEmpty
          ? Effect.fail(
            new TargetNotEmpty({ message: `the PostgreSQL database already holds ${outcome.what}; import only into an empty database` })
          )
          : Effect.void
      )
    ))
