/**
 * Which instances serve a database, as PostgreSQL sees it: each serving instance holds a shared,
 * session-level advisory lock for its schema on a connection of its own (opened again whenever it is
 * lost, so an outage does not drop it for good, and gone with the instance however it ends), named by
 * its `application_name` (`petstore serve pid … on <host>`). `petstore import-sqlite` takes the same
 * lock exclusively for its transaction and refuses while any instance holds it: an import replaces
 * the page-cursor secret, which a running instance read at start, so the cursors it issues or
 * accepts would otherwise stop working. An instance that starts during an import waits for it.
 *
 * @since 1.0.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Os from "node:os"
import { type Client, Database } from "./Database.js"

/** The lock's two keys: a constant of the pet store (`'pets'` in ASCII), and the schema's. */
const KEYS = "1885697139, hashtext(current_schema()) & 2147483647"

/** The frontier lock's keys: `'pett'` in ASCII, and the schema's. */
const FRONTIER_KEYS = "1885697140, hashtext(current_schema()) & 2147483647"

/** The session locks of a serving instance, taken when its connection opens: serving, and reading the frontier. */
export const HOLD = `SELECT pg_advisory_lock_shared(${KEYS}), pg_advisory_lock_shared(${FRONTIER_KEYS})`
/** The import's lock, for its transaction; false while an instance serves the schema. */
export const TRY_EXCLUSIVE = `SELECT pg_try_advisory_xact_lock(${KEYS}) AS free`

/** The sessions holding the serving lock of this schema (and meeting `also`), as PostgreSQL names them. */
const holdersWhere = (also: string) =>
  `SELECT a.application_name AS name, coalesce(host(a.client_addr), 'a local socket') AS address,
    to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
  FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
  WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
    AND l.classid = 1885697139 AND l.objid = (hashtext(current_schema()) & 2147483647)::oid${also}
  ORDER BY a.backend_start`

/** The sessions that hold the serving lock of this schema, as PostgreSQL names them. */
export const HOLDERS = holdersWhere("")

/** Those that do not hold the frontier lock too: instances of a release before migration 11. */
export const WITHOUT_FRONTIER = holdersWhere(`
    AND NOT EXISTS (SELECT 1 FROM pg_locks f WHERE f.pid = l.pid AND f.locktype = 'advisory' AND f.granted AND f.objsubid = 2
      AND f.database = l.database AND f.classid = 1885697140 AND f.objid = l.objid)`)

/** The instances serving the schema `client` is on (`which`: all of them, or `WITHOUT_FRONTIER`), in words (empty when none). */
export const holders = async (client: Pick<Client, "query">, which: string = HOLDERS): Promise<ReadonlyArray<string>> =>
  (await client.query<{ name: string; address: string; since: string }>(which)).rows.map((r) =>
    `${r.name === "" ? "an unnamed session" : r.name} (from ${r.address}, since ${r.since})`
  )

/** This process's name in `pg_stat_activity` while it serves. */
export const applicationName = (): string => `petstore serve pid ${process.pid} on ${Os.hostname()}`.slice(0, 63)

/**
 * The serving lock, held for the life of the layer; built once the lock is first held (or its
 * connection first lost: the instance serves anyway, and takes the lock when it can).
 *
 * @category layers
 */
export const layer: Layer.Layer<never, never, Database> = Layer.effectDiscard(
  Effect.gen(function*() {
    const db = yield* Database
    const first = yield* Deferred.make<void>()
    const settle = () => Effect.runFork(Deferred.succeed(first, undefined))
    yield* db.session(async (client) => {
      await client.query("SELECT set_config('application_name', $1, false)", [applicationName()])
      // An import in progress holds the lock: this waits for it to commit, however long it takes.
      await client.query("SET statement_timeout = 0")
      await client.query(HOLD)
      settle()
    }, settle)
    yield* Deferred.await(first)
  })
)
