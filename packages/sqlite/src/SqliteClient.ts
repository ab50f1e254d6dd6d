/**
 * The one SQLite connection of a process: opened on `filename` (its folder created if missing), in
 * WAL mode with `synchronous=FULL`, so a committed transaction is on disk when the commit returns.
 * Anything that prevents opening becomes a `DatabaseOpenError` with a sentence a person can act on.
 *
 * @since 1.0.0
 */
import type { SqlClient } from "@effect/sql"
import { SqliteClient } from "@effect/sql-sqlite-node"
import { Cause, Data, Effect, Layer, Option } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"

/** Where the database lives: a file path, or `:memory:` for a database that ends with the process. */
export interface SqliteOptions {
  readonly filename: string
}

/**
 * The database cannot be used: missing folder, not a database, damaged, locked, read-only, newer
 * schema ... `message` is the whole explanation, without a stack trace.
 *
 * @category errors
 */
export class DatabaseOpenError extends Data.TaggedError("DatabaseOpenError")<{
  readonly filename: string
  readonly message: string
  readonly cause?: unknown
}> {}

/** How long a statement waits for another process (the CLI) to finish its write before giving up. */
export const BUSY_TIMEOUT_MILLIS = 5_000

export const isMemory = (filename: string): boolean => filename === ":memory:" || filename === ""

/** The SQLite result code (`SQLITE_BUSY` ...) or Node error code somewhere in `error`'s causes. */
export const errorCode = (error: unknown): string | undefined => {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    const code = (e as { code?: unknown }).code
    if (typeof code === "string") return code
    e = (e as { cause?: unknown }).cause
  }
  return undefined
}

const messageOf = (error: unknown): string => {
  for (let e: unknown = error, depth = 0; e !== null && typeof e === "object" && depth < 8; depth++) {
    const cause = (e as { cause?: unknown }).cause
    if (cause === undefined || cause === null || typeof cause !== "object") {
      return String((e as { message?: unknown }).message ?? e)
    }
    e = cause
  }
  return String(error)
}

/** A sentence for a failure to open or use `filename`, from the SQLite result code when there is one. */
export const explain = (filename: string, error: unknown): string => {
  const code = errorCode(error) ?? ""
  const file = JSON.stringify(filename)
  if (code.startsWith("SQLITE_NOTADB")) return `database ${file} is not a SQLite database (or it is encrypted or damaged)`
  if (code.startsWith("SQLITE_CORRUPT")) return `database ${file} is damaged (SQLite reports corruption); restore it from a backup`
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return `database ${file} is locked by another process; stop the process that holds it, or use another file`
  }
  if (code.startsWith("SQLITE_READONLY") || code.startsWith("SQLITE_PERM") || code === "EACCES" || code === "EROFS") {
    return `database ${file} cannot be written by this process (read-only file, folder or file system)`
  }
  if (code.startsWith("SQLITE_FULL") || code === "ENOSPC") return `database ${file}: the disk is full`
  if (code.startsWith("SQLITE_CANTOPEN") || code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR" || code === "EEXIST") {
    return `database ${file} cannot be opened: check that the path names a file in a folder this process can write`
  }
  return `database ${file} cannot be used: ${messageOf(error)}`
}

const openError = (filename: string) => (cause: Cause.Cause<unknown>) => {
  const error = Option.getOrElse(Cause.failureOption(cause), () => Cause.squash(cause))
  return new DatabaseOpenError({ filename, message: explain(filename, error), cause: error })
}

const ensureFolder = (filename: string) =>
  isMemory(filename)
    ? Effect.void
    : Effect.try({
      try: () => void Fs.mkdirSync(Path.dirname(Path.resolve(filename)), { recursive: true }),
      catch: (cause) => new DatabaseOpenError({ filename, message: explain(filename, cause), cause })
    })

/**
 * The client, with the pragmas every connection of this package runs with. Opening the file and the
 * first statements are where a bad or locked file shows, so their failures become `DatabaseOpenError`.
 *
 * @category layers
 */
export const layer = (
  options: SqliteOptions
): Layer.Layer<SqliteClient.SqliteClient | SqlClient.SqlClient, DatabaseOpenError> =>
  pragmas.pipe(
    Layer.provideMerge(
      SqliteClient.layer({ filename: options.filename, disableWAL: isMemory(options.filename) }).pipe(
        Layer.provide(Layer.effectDiscard(ensureFolder(options.filename)))
      )
    ),
    Layer.catchAllCause((cause) => Layer.fail(openError(options.filename)(cause)))
  )

const pragmas = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqliteClient.SqliteClient
  // Reading the schema is the first real read of the file: a non-database fails here.
  yield* sql`SELECT count(*) AS n FROM sqlite_master`
  yield* sql.unsafe(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MILLIS}`)
  // WAL + FULL: the WAL is synced at every commit, so an acknowledged write survives power loss.
  yield* sql`PRAGMA synchronous = FULL`
  yield* sql`PRAGMA foreign_keys = ON`
}))
