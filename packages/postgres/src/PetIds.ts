/**
 * How pet ids are taken on a database: from the counter row (`pet_ids`, every insert holding it until
 * it commits: inserts serialized across instances) or concurrently (a sequence, each insert holding a
 * shared advisory lock that listings read as their frontier). Both are served by the functions of
 * migration 11 (`PetRepositoryPg`); the mode is whether the counter row exists.
 *
 * The switch is one-way and is the contract step of an expand/contract pair (docs/storage.md,
 * *Concurrent pet ids*): releases before migration 11 list with `id > cursor` alone, so they must be
 * gone before any insert takes ids out of commit order. `switchToConcurrent` refuses while an instance
 * that does not read the frontier serves the schema (each serving instance of this release holds the
 * frontier lock beside the serving lock, `Serving`), and records that the schema now requires a
 * program that knows migration 11, so that such a release refuses to start on it afterwards. A new
 * database (migrated from nothing) is switched by the migration run itself: nothing older served it.
 *
 * @since 2.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { Errors } from "@petstore/core"
import { ADMIN_TIMEOUT, type Client, Database } from "./Database.js"
import * as Serving from "./Serving.js"

/** The migration that brought both modes, and the program version a switched schema requires. */
export const CONCURRENT_IDS_MIGRATION = 11

/** How the database hands out pet ids. */
export type Mode = "counter" | "concurrent"

/** The switch was refused: an instance that lists without the frontier serves the schema. */
export class OlderInstancesServing extends Data.TaggedError("OlderInstancesServing")<{ readonly message: string }> {}

/**
 * Sets the sequence so that its next id is above `$1` and above every pet's: its last value is then
 * that (or it starts at 1, never having been called, when both are 0).
 */
export const CONTINUE_SEQUENCE = `SELECT CASE WHEN v > 0 THEN setval('pet_id_sequence', v, true) ELSE setval('pet_id_sequence', 1, false) END
  FROM (SELECT greatest($1::int8, (SELECT coalesce(max(id), 0) FROM pets)) AS v) AS above`

/** The mode of the database `client` is on. */
export const modeOf = async (client: Pick<Client, "query">): Promise<Mode> => {
  const { rows } = await client.query<{ counter: boolean }>("SELECT EXISTS (SELECT 1 FROM pet_ids) AS counter")
  return rows[0]?.counter === true ? "counter" : "concurrent"
}

/**
 * Switches `client`'s database to concurrent ids, in its transaction: the counter row is locked (its
 * inserts in flight finish first; later ones wait, then find it gone and take concurrent ids), the
 * sequence continues from it, the row is removed, and the schema requires this program from then on.
 * Whether it switched (false: it already had).
 */
export const switchIn = async (client: Pick<Client, "query">): Promise<boolean> => {
  const { rows } = await client.query<{ last: number }>("SELECT last FROM pet_ids FOR UPDATE")
  const last = rows[0]?.last
  if (last === undefined) return false
  await client.query(CONTINUE_SEQUENCE, [last])
  await client.query("DELETE FROM pet_ids")
  await client.query("UPDATE schema_migrations SET requires_program = greatest(requires_program, $1) WHERE id = $1", [
    CONCURRENT_IDS_MIGRATION
  ])
  return true
}

/** The serving instances of this schema that do not read the frontier (a release before migration 11), in words. */
export const olderInstances = (client: Pick<Client, "query">): Promise<ReadonlyArray<string>> =>
  Serving.holders(client, Serving.WITHOUT_FRONTIER)

/**
 * In `client`'s transaction: the instances of an earlier release serving the database, if any (then
 * nothing changes), or whether `switchIn` switched it.
 */
export const switchUnlessOlderServe = async (
  client: Pick<Client, "query">
): Promise<{ readonly older: ReadonlyArray<string> } | { readonly switched: boolean }> => {
  await client.query("SET LOCAL statement_timeout = 0")
  const older = await olderInstances(client)
  return older.length > 0 ? { older } : { switched: await switchIn(client) }
}

/** The database's mode. @category accessors */
export const mode: Effect.Effect<Mode, Errors.StoreUnavailable, Database> = Effect.flatMap(
  Database,
  (db) => Effect.mapError(db.transaction(modeOf, ADMIN_TIMEOUT), (cause) => new Errors.StoreUnavailable({ cause }))
)

/**
 * `petstore pet-ids --concurrent`: switches the database to concurrent ids, or refuses while an older
 * instance serves it. Whether it switched (false: it already had).
 *
 * @category constructors
 */
export const switchToConcurrent: Effect.Effect<boolean, OlderInstancesServing | Errors.StoreUnavailable, Database> = Effect
  .flatMap(Database, (db) =>
    db.transaction(switchUnlessOlderServe, ADMIN_TIMEOUT).pipe(
      Effect.mapError((cause) => new Errors.StoreUnavailable({ cause })),
      Effect.flatMap((outcome) =>
        "older" in outcome
          ? Effect.fail(
            new OlderInstancesServing({
              message: `${outcome.older.length === 1 ? "an instance" : `${outcome.older.length} instances`} of a release that lists pets without the frontier ${
                outcome.older.length === 1 ? "serves" : "serve"
              } this database: ${outcome.older.join("; ")}; replace ${outcome.older.length === 1 ? "it" : "them"} with this release first`
            })
          )
          : Effect.succeed(outcome.switched)
      )
    ))
