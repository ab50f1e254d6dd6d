/**
 * One server per database file: a server holds an operating-system lock on a companion file
 * (`<database>.lock`) for as long as it runs, and a second server on the same file refuses to start
 * with a sentence that names the process holding it. Command-line work on the file (accounts, keys,
 * migrations, backups) takes no such lock and goes on beside the server.
 *
 * The lock is SQLite's own: the companion file is a small SQLite database opened in
 * `locking_mode=EXCLUSIVE`, whose first write takes an exclusive POSIX (fcntl) lock that SQLite keeps
 * until the connection closes. The operating system drops such a lock when its process ends in any
 * way, `kill -9` included, so a crashed server never leaves the file locked. The holder writes its
 * process id into the database header's `user_version` field (bytes 60–63, big-endian, in SQLite's
 * file format), which a process refused the lock reads from the file's bytes: POSIX locks are
 * advisory, so reading is never blocked.
 *
 * Why not `locking_mode=EXCLUSIVE` on the database itself: it would shut out the command line
 * (`petstore accounts create`, `keys revoke`) and `sqlite3 .backup`, which docs/storage.md runs
 * while the server serves.
 *
 * @since 1.0.0
 */
import Sqlite3 from "better-sqlite3"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import { DatabaseOpenError, errorCode, explain, isMemory } from "./Connection.js"
import { createPrivate } from "./internal/privateFiles.js"

/** The companion file a server of `filename` locks. */
export const lockFileOf = (filename: string): string => `${filename}.lock`

/** Offset of the `user_version` field in a SQLite database header. */
const USER_VERSION_OFFSET = 60

/** The process id recorded in the lock file, read from its bytes; undefined when there is none. */
export const holderOf = (lockFile: string): number | undefined => {
  try {
    const header = Buffer.alloc(4)
    const fd = Fs.openSync(lockFile, "r")
    try {
      if (Fs.readSync(fd, header, 0, 4, USER_VERSION_OFFSET) < 4) return undefined
    } finally {
      Fs.closeSync(fd)
    }
    const pid = header.readUInt32BE(0)
    return pid === 0 ? undefined : pid
  } catch {
    return undefined
  }
}

/** What a person can learn of process `pid` on this machine: its command line, when it is readable. */
const describeProcess = (pid: number): string => {
  try {
    const command = Fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((part) => part !== "").join(" ")
    return command === "" ? `process ${pid}` : `process ${pid} (${command})`
  } catch {
    return `process ${pid}`
  }
}

/** The sentence for a database another server holds. */
export const heldMessage = (filename: string, pid: number | undefined): string =>
  `database ${JSON.stringify(filename)} is already served by ${pid === undefined ? "another process" : describeProcess(pid)}` +
  ` (it holds ${JSON.stringify(lockFileOf(filename))}); stop that server, or use another file`

/** This process's lock on a database file, held while the layer lives. */
export class ServeLock extends Context.Service<
  ServeLock,
  { readonly filename: string; readonly lockFile: string | undefined }
>()("@petstore/sqlite/ServeLock") {}

/**
 * The lock files this process holds. Closing any descriptor of a file drops every POSIX lock the
 * process has on it, so this process never opens a file it holds to read the holder: it knows it.
 */
const heldHere = new Set<string>()

const acquire = (filename: string): Sqlite3.Database => {
  const lockFile = lockFileOf(filename)
  if (heldHere.has(lockFile)) throw Object.assign(new Error("held by this process"), { code: "SQLITE_BUSY" })
  createPrivate(lockFile)
  // No busy wait: a held lock is an answer, not a reason to wait.
  const db = new Sqlite3(lockFile, { timeout: 0 })
  try {
    db.pragma("journal_mode = MEMORY")
    db.pragma("locking_mode = EXCLUSIVE")
    db.exec("BEGIN EXCLUSIVE")
    db.pragma(`user_version = ${process.pid}`)
    db.exec("COMMIT")
    heldHere.add(lockFile)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/**
 * Takes the lock on `filename` (nothing for `:memory:`), or fails with a `DatabaseOpenError` naming
 * the process that holds it; released when the scope closes, or by the system when the process ends.
 *
 * @category constructors
 */
export const make = (filename: string) => {
  if (isMemory(filename)) return Effect.succeed(ServeLock.of({ filename, lockFile: undefined }))
  const lockFile = lockFileOf(filename)
  return Effect.acquireRelease(
    Effect.try({
      try: () => acquire(filename),
      catch: (cause) => {
        const code = errorCode(cause) ?? ""
        const held = code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")
        return new DatabaseOpenError({
          filename,
          message: held ? heldMessage(filename, heldHere.has(lockFile) ? process.pid : holderOf(lockFile)) : explain(lockFile, cause),
          cause
        })
      }
    }),
    (db) =>
      Effect.sync(() => {
        db.close()
        heldHere.delete(lockFile)
      })
  ).pipe(Effect.as(ServeLock.of({ filename, lockFile })))
}

/**
 * The lock as a layer: a server builds its stores on it, so a second server on the same file stops
 * before it opens the database.
 *
 * @category layers
 */
export const layer = (filename: string): Layer.Layer<ServeLock, DatabaseOpenError> => Layer.effect(ServeLock, make(filename))
