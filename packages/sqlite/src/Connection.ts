/**
 * The one SQLite connection of a process, on better-sqlite3: opened on `filename` (its folder
 * and file created private if missing, see `internal/privateFiles`), in WAL mode with `synchronous=FULL`, so a committed transaction is on disk
 * when the commit returns. Stores prepare their statements once, when they are built, so a request
 * runs SQL without parsing it. Anything that prevents opening becomes a
 * `DatabaseOpenError` with a sentence a person can act on.
 *
 * better-sqlite3 is synchronous: a statement runs to completion in the calling turn of the event
 * loop. `GroupCommit` relies on that (a batch never spans two turns) and is the only writer.
 *
 * @since 1.0.0
 */
import Sqlite3 from "better-sqlite3"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { wrongNativeBuild } from "./internal/nativeBuild.js"
import { createPrivate, exposureWarning } from "./internal/privateFiles.js"

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

/** Whether `filename` names an in-memory database. */
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
  const native = wrongNativeBuild(error)
  if (native !== undefined) return native
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

/**
 * A prepared statement of this connection: what the stores use of better-sqlite3's, declared here so
 * the package's types do not need `@types/better-sqlite3` (a development dependency).
 */
export interface Statement {
  run(...params: Array<unknown>): { readonly changes: number; readonly lastInsertRowid: number | bigint }
  get(...params: Array<unknown>): unknown
  all(...params: Array<unknown>): Array<unknown>
  /** Rows as their first column's value (on), or as objects (off). */
  pluck(toggle?: boolean): this
}

/** The SQLite connection: its statements, run synchronously. @category services */
export class Connection extends Context.Service<
  Connection,
  {
    readonly filename: string
    /**
     * A new prepared statement for `source` (throws on invalid SQL). Stores prepare theirs once,
     * when they are built; each gets its own, so modes such as `pluck()` are never shared.
     */
    readonly prepare: (source: string) => Statement
    /** Runs `source` (one or more statements without parameters). */
    readonly exec: (source: string) => void
    /** An online copy of the database to `destination` (a consistent snapshot while serving). */
    readonly backup: (destination: string) => Effect.Effect<void, DatabaseOpenError>
  }
>()("@petstore/sqlite/Connection") {}

const open = (filename: string): Sqlite3.Database => {
  if (!isMemory(filename)) createPrivate(filename)
  const db = new Sqlite3(filename, { timeout: BUSY_TIMEOUT_MILLIS })
  try {
    // Reading the schema is the first real read of the file: a non-database fails here.
    db.prepare("SELECT count(*) AS n FROM sqlite_master").get()
    if (!isMemory(filename)) db.pragma("journal_mode = WAL")
    // WAL + FULL: the WAL is synced at every commit, so an acknowledged write survives power loss.
    db.pragma("synchronous = FULL")
    db.pragma("foreign_keys = ON")
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** Once open: a warning when other users can read the database (or a `-wal`/`-shm` left from before; new ones take the database's mode). */
const warnIfExposed = (filename: string): Effect.Effect<void> => {
  if (isMemory(filename)) return Effect.void
  const warning = Effect.try(() => exposureWarning(filename)).pipe(Effect.orElseSucceed(() => undefined))
  return Effect.flatMap(warning, (text) => text === undefined ? Effect.void : Effect.logWarning(text))
}

/** Opens the database file (or memory) in WAL mode with synchronous commits, for the life of the scope. @category constructors */
export const make = (options: SqliteOptions) =>
  Effect.map(
    Effect.acquireRelease(
      Effect.try({
        try: () => open(options.filename),
        catch: (cause) => new DatabaseOpenError({ filename: options.filename, message: explain(options.filename, cause), cause })
      }),
      (db) => Effect.sync(() => db.close())
    ).pipe(Effect.tap(() => warnIfExposed(options.filename))),
    (db) =>
      Connection.of({
        filename: options.filename,
        prepare: (source) => db.prepare(source),
        exec: (source) => void db.exec(source),
        backup: (destination) =>
          Effect.tryPromise({
            try: () => db.backup(destination),
            catch: (cause) => new DatabaseOpenError({ filename: destination, message: explain(destination, cause), cause })
          }).pipe(Effect.asVoid)
      })
  )

/**
 * The connection, closed when the layer is released. Opening the file and the first statements are
 * where a bad or locked file shows, so their failures become `DatabaseOpenError`.
 *
 * @category layers
 */
export const layer = (options: SqliteOptions): Layer.Layer<Connection, DatabaseOpenError> =>
  Layer.effect(Connection, make(options))
