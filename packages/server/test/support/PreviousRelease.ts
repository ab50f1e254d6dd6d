/**
 * The previous release: the program the upgrade test (Upgrade.test.ts) runs next to today's, built
 * from git history by scripts/release-build.mjs into ~/.cache/petstore/releases/<sha> (built once,
 * reused after).
 *
 * Move `COMMIT` forward at each release that adds a PostgreSQL migration: to the last commit before
 * that migration (its parent), so the test always upgrades from the schema the newest migration
 * starts from. `SCHEMA` is the schema version that commit knows (its last migration's id).
 */
import { execFile, execFileSync } from "node:child_process"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

/** The parent of the commit that added migrations 7 and 8 (account_name_status, accounts_newest). */
export const COMMIT = "25cf7a6a53b71f484150a3b0b0aa129c8fa6dc0c"
/** The last migration COMMIT knows. */
export const SCHEMA = 6

const ROOT = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../..")
const SCRIPT = Path.join(ROOT, "scripts", "release-build.mjs")

/** Why the previous release cannot be built here (no git, or the commit is not in this clone), or undefined. */
export const unavailable = (() => {
  try {
    execFileSync("git", ["-C", ROOT, "rev-parse", "--git-dir"], { stdio: "ignore" })
  } catch {
    return `${ROOT} is not a git checkout (or git is missing): the previous release is built from git history`
  }
  try {
    execFileSync("git", ["-C", ROOT, "cat-file", "-e", `${COMMIT}^{commit}`], { stdio: "ignore" })
    return undefined
  } catch {
    return `commit ${COMMIT} (the previous release) is not in this clone's history: clone with full history (git fetch --unshallow)`
  }
})()

/** The previous release's `petstore` entry point (dist/bin.js), built first when the cache has none. */
export const build = () =>
  new Promise<string>((resolve, reject) => {
    execFile(process.execPath, [SCRIPT, COMMIT], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error !== null) reject(new Error(`building the previous release (${COMMIT}) failed:\n${stderr.slice(-4000)}`))
      else resolve(Path.join(stdout.trim(), "packages", "server", "dist", "bin.js"))
    })
  })
