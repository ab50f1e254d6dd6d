/**
 * The database's files are for this process's user only: they hold every account's messages, the
 * keys' hashes and the cursor secret. What the server creates it creates private (the folder 0700,
 * the database file 0600 before SQLite opens it, so SQLite gives `-wal` and `-shm` the same mode as
 * the database file); what exists already is left as the operator set it, and reported when other
 * users can read it.
 */
import * as Fs from "node:fs"
import * as Path from "node:path"

const PRIVATE_FOLDER = 0o700
const PRIVATE_FILE = 0o600
/** Read permission for the group or for others. */
const READABLE_BY_OTHERS = 0o044

/** The files SQLite keeps for `filename` in WAL mode. */
const walFiles = (filename: string): ReadonlyArray<string> => [filename, `${filename}-wal`, `${filename}-shm`]

/**
 * Creates the folders missing on the way to `filename` (0700) and, if there is no file yet, an empty
 * one (0600; SQLite takes an empty file for an empty database). Throws what node:fs throws.
 */
export const createPrivate = (filename: string): void => {
  const path = Path.resolve(filename)
  Fs.mkdirSync(Path.dirname(path), { recursive: true, mode: PRIVATE_FOLDER })
  try {
    // "wx": created here or not at all, so an existing file's mode is never touched.
    Fs.closeSync(Fs.openSync(path, "wx", PRIVATE_FILE))
  } catch (error) {
    if ((error as { code?: unknown }).code !== "EEXIST") throw error
  }
}

/** The files of `filename` (database, `-wal`, `-shm`) that other users may read, each with its mode. */
export const readableByOthers = (filename: string): ReadonlyArray<{ readonly file: string; readonly mode: number }> =>
  walFiles(filename).flatMap((file) => {
    const stat = Fs.statSync(file, { throwIfNoEntry: false })
    return stat !== undefined && (stat.mode & READABLE_BY_OTHERS) !== 0 ? [{ file, mode: stat.mode & 0o777 }] : []
  })

/** The warning for files other users can read, or `undefined` when there are none. */
export const exposureWarning = (filename: string): string | undefined => {
  const exposed = readableByOthers(filename)
  if (exposed.length === 0) return undefined
  const listed = exposed.map(({ file, mode }) => `${JSON.stringify(file)} (${mode.toString(8).padStart(4, "0")})`).join(", ")
  return `database files readable by other users of this machine: ${listed}; they hold every account's messages, key hashes and the cursor secret: chmod 600 them and 700 their folder`
}
