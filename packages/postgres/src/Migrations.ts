/**
 * The schema, as numbered migrations applied at start (and by `petstore migrate`).
 *
 * - Several instances starting at once apply each migration exactly once: the whole run holds a
 *   transaction-level advisory lock, so the others wait, then find nothing left to do. (A migration
 *   run outside the transaction, `outsideTransaction`, has a session-level lock of its own.)
 * - A migration and its record commit together: a failure leaves the database as it was.
 * - Migrations are additive (new tables, columns with defaults, indexes), so an instance of the
 *   previous version keeps serving while a newer one migrates (rolling deploys). A migration that
 *   is not additive says so with `requiresProgram`: the oldest schema version a program must know
 *   to work with the database once it is applied. An instance that knows less refuses to start,
 *   with a message that says why; a database merely newer than the instance is served.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ADMIN_TIMEOUT, Database, DatabaseOpenError, messageOf } from "./Database.js"
import { applyOutsideTransaction } from "./internal/outsideTransaction.js"
import { type Migration, SCHEMA } from "./internal/schema.js"
import * as PetIds from "./PetIds.js"

export type { Migration }

/** The advisory lock that serializes migration runs (any constant shared by every instance). */
const MIGRATION_LOCK = 0x7065_7401

/** Never edit a released migration: add a new one (`internal/schema.ts`). */
export const MIGRATIONS: ReadonlyArray<Migration> = SCHEMA

/** What a run found and did. */
export interface MigrationReport {
  /** The schema version before the run. */
  readonly from: number
  /** The migrations this run applied (empty when another instance had applied them). */
  readonly applied: ReadonlyArray<number>
  /** The schema version after the run (may be above what this program knows, when compatible). */
  readonly version: number
}

interface VersionRow {
  readonly version: number | null
  readonly requires: number | null
}

/** Whether the database's schema can be used by a program that knows up to `known`; why not if not. */
export const compatibility = (version: number, requires: number, known: number): string | undefined =>
  requires > known
    ? `database schema version ${version} needs a program that knows schema version ${requires} or later; this program knows up to ${known}: run a newer version of the program`
    : undefined

/**
 * Brings the database to the last of `migrations` (all of them by default; tests pass a prefix to
 * make an "older version" database), or refuses a schema this program cannot work with. A database
 * made by this run (from nothing) with migration 11 takes pet ids concurrently from the start
 * (`PetIds`): no release that lists without the frontier has served it.
 */
export const migrate = (
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<MigrationReport, DatabaseOpenError, Database> =>
  Effect.flatMap(applyAll(migrations), (report) =>
    report.from === 0 && report.version >= PetIds.CONCURRENT_IDS_MIGRATION &&
      migrations.some((m) => m.id === PetIds.CONCURRENT_IDS_MIGRATION)
      ? Effect.as(concurrentIdsWhenNew, report)
      : Effect.succeed(report))

/** A new database's switch to concurrent pet ids, unless an older instance already serves it. */
const concurrentIdsWhenNew = Effect.flatMap(Database, (db) =>
  db.transaction(PetIds.switchUnlessOlderServe, ADMIN_TIMEOUT).pipe(Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error }))))

const applyAll = (
  migrations: ReadonlyArray<Migration>
): Effect.Effect<MigrationReport, DatabaseOpenError, Database> =>
  Effect.flatMap(Database, (db) => {
    const known = migrations.reduce((max, m) => Math.max(max, m.id), 0)
    return db.transaction(async (client) => {
      // Administrative work may take longer than a request's statement timeout.
      await client.query("SET LOCAL statement_timeout = 0")
      await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK])
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        requires_program integer NOT NULL
      )`)
      const { rows: [row] } = await client.query<VersionRow>(
        "SELECT max(id) AS version, max(requires_program) AS requires FROM schema_migrations"
      )
      const from = row?.version ?? 0
      const refused = compatibility(from, row?.requires ?? 0, known)
      if (refused !== undefined) return { refused } as const
      const applied: Array<number> = []
      let requires = row?.requires ?? 0
      for (const m of migrations.filter((m) => m.id > from).sort((a, b) => a.id - b.id)) {
        // The transaction ends here: that migration, then the rest, are applied after it commits.
        if (m.outsideTransaction === true) return { from, applied, version: applied.at(-1) ?? from, next: { m, requires } }
        for (const statement of m.statements) await client.query(statement)
        requires = Math.max(requires, m.requiresProgram ?? 1)
        await client.query("INSERT INTO schema_migrations (id, name, requires_program) VALUES ($1, $2, $3)", [m.id, m.name, requires])
        applied.push(m.id)
      }
      return { from, applied, version: Math.max(from, known), next: undefined }
    }, ADMIN_TIMEOUT).pipe(
      Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error })),
      Effect.flatMap((result): Effect.Effect<MigrationReport, DatabaseOpenError, Database> => {
        if ("refused" in result) {
          return Effect.fail(new DatabaseOpenError({ url: db.where, message: `PostgreSQL at ${db.where}: ${result.refused}` }))
        }
        const { next, ...report } = result
        if (next === undefined) return Effect.succeed(report)
        return outsideTransaction(db, next.m, Math.max(next.requires, next.m.requiresProgram ?? 1)).pipe(
          Effect.andThen((appliedHere) => Effect.map(applyAll(migrations), (rest) => ({
            from: report.from,
            applied: [...report.applied, ...(appliedHere ? [next.m.id] : []), ...rest.applied],
            version: rest.version
          })))
        )
      })
    )
  })

/** Applies `m` outside a transaction (on a pooled connection, its transaction committed first); whether this run did. */
const outsideTransaction = (db: Database["Service"], m: Migration, requires: number) =>
  db.transaction(async (client) => {
    await client.query("COMMIT")
    try {
      return await applyOutsideTransaction(client, m, requires)
    } finally {
      await client.query("BEGIN")
    }
  }, ADMIN_TIMEOUT).pipe(
    Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error }))
  )

/**
 * The migrations `migrate` would apply to the database, applying none (`petstore migrate --check`);
 * the schema's version with them.
 */
export const pending = (
  migrations: ReadonlyArray<Migration> = MIGRATIONS
): Effect.Effect<{ readonly version: number; readonly pending: ReadonlyArray<Migration> }, DatabaseOpenError, Database> =>
  Effect.flatMap(Database, (db) => {
    const known = migrations.reduce((max, m) => Math.max(max, m.id), 0)
    return db.transaction(async (client) => {
      const { rows: [table] } = await client.query<{ name: string | null }>("SELECT to_regclass('schema_migrations')::text AS name")
      if (table?.name === null || table?.name === undefined) return { version: 0, requires: 0 }
      const { rows: [row] } = await client.query<VersionRow>(
        "SELECT max(id) AS version, max(requires_program) AS requires FROM schema_migrations"
      )
      return { version: row?.version ?? 0, requires: row?.requires ?? 0 }
    }, ADMIN_TIMEOUT).pipe(
      Effect.mapError((error) => new DatabaseOpenError({ url: db.where, message: messageOf(error), cause: error })),
      Effect.flatMap(({ requires, version }) => {
        // A schema this program cannot work with is refused, as `migrate` and the server refuse it.
        const refused = compatibility(version, requires, known)
        return refused !== undefined
          ? Effect.fail(new DatabaseOpenError({ url: db.where, message: `PostgreSQL at ${db.where}: ${refused}` }))
          : Effect.succeed({ version, pending: migrations.filter((m) => m.id > version).sort((a, b) => a.id - b.id) })
      })
    )
  })

/** Runs the migrations when the layer is built. */
export const layer: Layer.Layer<never, DatabaseOpenError, Database> = Layer.effectDiscard(migrate())
