// `node scripts/release-build.mjs COMMIT`: a built copy of the program as it was at COMMIT (a release
// the upgrade test runs next to today's program, packages/server/test/Upgrade.test.ts), in a cache
// outside the repository: $XDG_CACHE_HOME/petstore/releases/<full sha> (~/.cache/… by default).
// Prints that directory. The commit's files come from `git archive` (no worktree is registered in
// the repository); then `pnpm install --frozen-lockfile` (better-sqlite3 compiled from source
// against the headers of the Node that runs this script, as .ci/run does) and `pnpm run build`.
// Everything happens in a scratch directory renamed into place once built, so a copy in the cache
// is always a whole one, and a second run only prints its path. Exits 1 with the reason when the
// commit is not in this clone (a shallow clone: `git fetch --unshallow`) or a step fails.
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const fail = (message) => {
  console.error(`release-build: ${message}`)
  process.exit(1)
}

const commit = process.argv[2]
if (commit === undefined) fail("usage: node scripts/release-build.mjs COMMIT")
const git = (...args) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()
let sha
try {
  sha = git("rev-parse", "--verify", "--quiet", `${commit}^{commit}`)
} catch {
  fail(`commit ${commit} is not in this clone's history (a shallow clone? \`git fetch --unshallow\`)`)
}

const releases = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "petstore", "releases")
const target = join(releases, sha)
/** Whether process `pid` still runs. */
const alive = (pid) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === "EPERM"
  }
}
// What a build that was killed left behind.
for (const name of existsSync(releases) ? readdirSync(releases) : []) {
  const building = /^[0-9a-f]{40}\.building-(\d+)$/.exec(name)
  if (building !== null && !alive(Number(building[1]))) rmSync(join(releases, name), { recursive: true, force: true })
}

/** What a finished build leaves: the server's entry point. */
const built = (dir) => existsSync(join(dir, "packages", "server", "dist", "bin.js"))
if (built(target)) {
  console.log(target)
  process.exit(0)
}

const scratch = join(releases, `${sha}.building-${process.pid}`)
rmSync(scratch, { recursive: true, force: true })
mkdirSync(scratch, { recursive: true })
const run = (what, command, args, options = {}) => {
  const started = Date.now()
  // The steps' output goes to standard error: standard output is the directory alone.
  const result = spawnSync(command, args, { cwd: scratch, stdio: ["ignore", 2, 2], ...options })
  if (result.status !== 0) {
    rmSync(scratch, { recursive: true, force: true })
    fail(`${what} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}) in ${scratch}`)
  }
  console.error(`release-build: ${what} in ${Math.round((Date.now() - started) / 1000)} s`)
}
run("git archive", "sh", ["-c", `git -C "$0" archive --format=tar "$1" | tar -x -f -`, root, sha])
// The Node that runs this script compiles the native addon and will run the release.
const nodeDir = resolve(dirname(process.execPath), "..")
const env = {
  ...process.env,
  npm_config_build_from_source: "true",
  ...(existsSync(join(nodeDir, "include", "node")) ? { npm_config_nodedir: nodeDir } : {}),
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`
}
run("pnpm install --frozen-lockfile", "pnpm", ["install", "--frozen-lockfile"], { env })
run("pnpm run build", "pnpm", ["run", "build"], { env: { ...env, PATH: `${join(scratch, "node_modules", ".bin")}:${env.PATH}` } })
if (!built(scratch)) fail(`the build left no packages/server/dist/bin.js in ${scratch}`)
try {
  renameSync(scratch, target)
} catch (error) {
  // Another run finished the same commit first: its copy is as good.
  rmSync(scratch, { recursive: true, force: true })
  if (!built(target)) fail(`cannot move ${scratch} to ${target}: ${error.message}`)
}
console.log(target)
