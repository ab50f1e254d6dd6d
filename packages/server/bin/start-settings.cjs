// The settings the `petstore` command starts the server with on Node 24 and later (docs/memory-and-tail.md,
// "The young generation on Node 24 and 26" and "Idle RSS on Node 26"). Both are read only when the process
// starts, so the command, when the user has not chosen a young generation's size, replaces its process
// with the same command started with them (process.execve: the same process id, so a signal sent to it
// still reaches the server) before it loads anything else:
// - `--max-semi-space-size=12`. On Node 20 and 22 each of V8's two semi-spaces grows to at most 16 MB;
//   the V8 of Node 24 lets it grow to 64 MB and that of Node 26 to 32 MB, which under load made the
//   server's peak RSS 1.2 to 1.8 times Node 20's for the same work. 12 MB and not Node 20's 16: the newer
//   lines' binary keeps about 9 MB more of itself in memory under load, which the smaller young
//   generation pays for. A size set with `node --max-semi-space-size=N` or in NODE_OPTIONS (0: V8's own
//   default) is left as it is, and then nothing is added.
// - `MALLOC_ARENA_MAX=2` in the environment (glibc's malloc; other C libraries ignore it): by default
//   each thread that allocates (V8's compiler and GC workers among them) may get a malloc arena of its
//   own, whose freed pages stay resident; with two, Node 26's RSS after start is about 2 MB lower
//   (1.16 instead of 1.19 times Node 20's), with no throughput or p99 cost measured. A value the user
//   set is kept.
"use strict"

/** Each semi-space's size, in MB (measured: docs/memory-and-tail.md). */
const SEMI_SPACE_MB = 12

/** How many malloc arenas glibc may make (measured: docs/memory-and-tail.md). */
const MALLOC_ARENAS = 2

/** Whether this Node line gets the settings: 24 and later, where Node can replace a process. */
const newerLine = () => Number(process.versions.node.split(".")[0]) >= 24 && typeof process.execve === "function"

/**
 * The V8 flags the server starts with on this Node line when the user chose none (bin/petstore.cjs;
 * scripts/bundle.mjs makes the code cache under them: V8 refuses a cache made under other flags).
 * None on the lines whose default is 16 MB (20, 22), where the newer binary's extra does not arise, or where Node cannot replace a process.
 */
const startFlags = () => (newerLine() ? [`--max-semi-space-size=${SEMI_SPACE_MB}`] : [])

/** The environment variables the server starts with on this Node line, besides `env`'s own: those `env` does not set already. */
const startEnvironment = (env = process.env) =>
  newerLine() && env.MALLOC_ARENA_MAX === undefined ? { MALLOC_ARENA_MAX: String(MALLOC_ARENAS) } : {}

/** Whether the user chose the young generation's size (command line or NODE_OPTIONS). */
const chosen = () =>
  [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)]
    .some((option) => /^--(max-semi-space-size|max-heap-size)\b/.test(option.replace(/_/g, "-")))

/**
 * Restarts this process with `startFlags()` and `startEnvironment()` when there are flags and the user
 * has not chosen a size (every command, so that the bundle's code cache, made under those flags, serves
 * them all). Not when it has an IPC channel (started by `fork()`, a cluster or a process manager's fork
 * mode): the channel does not outlive the restart. Where Node refuses the restart (the permission model
 * without `--allow-child-process`), the command runs as it is.
 */
const applyStartSettings = () => {
  const flags = startFlags()
  if (flags.length === 0 || chosen() || typeof process.send === "function") return
  try {
    process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, ...startEnvironment() })
  } catch {
    // Refused: V8's own sizes and glibc's own arenas.
  }
}

module.exports = { applyStartSettings, startFlags, startEnvironment, SEMI_SPACE_MB, MALLOC_ARENAS }
