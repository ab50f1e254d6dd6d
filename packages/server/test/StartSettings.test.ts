/**
 * The settings the `petstore` command starts the server with (bin/start-settings.cjs): on Node 24 and
 * later, when the user chose no young generation's size, the same process (same id, so a signal still
 * reaches the server) runs with `--max-semi-space-size=12` and `MALLOC_ARENA_MAX=2`; a size chosen in
 * NODE_OPTIONS is left as it is, and so is an arena count the user set; on Node 20 and 22 (16 MB by
 * default) nothing is added.
 */
import { describe, expect, it } from "@effect/vitest"
import { fork, spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, pollUntil } from "./support/ServerProcess.js"

const { MALLOC_ARENAS, SEMI_SPACE_MB } = createRequire(import.meta.url)("../bin/start-settings.cjs") as {
  MALLOC_ARENAS: number
  SEMI_SPACE_MB: number
}

const COMMAND = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../bin/petstore.cjs")
const restarts = Number(process.versions.node.split(".")[0]) >= 24

/** A process's NUL-separated /proc file, as a list. */
const procList = (pid: number | undefined, file: "cmdline" | "environ") => Fs.readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0")

/**
 * Starts `petstore serve` on the in-memory store; answers its command line and environment once it
 * listens, then its exit.
 */
const serve = async (nodeOptions: string, how: "spawn" | "fork" = "spawn", more: Record<string, string> = {}) => {
  const env = { PATH: process.env.PATH ?? "", PETSTORE_STORE: "memory", PORT: String(await freePort()), HOST: "127.0.0.1", NODE_OPTIONS: nodeOptions, ...more }
  const child = how === "spawn"
    ? spawn(process.execPath, [COMMAND, "serve"], { env, stdio: ["ignore", "pipe", "pipe"] })
    : fork(COMMAND, ["serve"], { env, execArgv: [], stdio: ["ignore", "pipe", "pipe", "ipc"] })
  let output = ""
  child.stdout!.on("data", (c) => (output += String(c)))
  child.stderr!.on("data", (c) => (output += String(c)))
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })))
  try {
    await pollUntil("the server to listen", () => /listening on/.test(output) ? true : undefined, 600, 50)
    const commandLine = procList(child.pid, "cmdline")
    const environment = procList(child.pid, "environ")
    child.kill("SIGTERM")
    return { commandLine, environment, exit: await ended }
  } finally {
    child.kill("SIGKILL")
  }
}

describe.skipIf(process.platform !== "linux")("the settings the server starts with", () => {
  it(restarts ? "12 MB semi-spaces and two malloc arenas when the user chose none, in the same process" : "nothing added on a line whose default is 16 MB", async () => {
    expect(SEMI_SPACE_MB).toBe(12)
    expect(MALLOC_ARENAS).toBe(2)
    const { commandLine, environment, exit } = await serve("")
    expect(commandLine.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`)).toBe(restarts)
    expect(environment.includes(`MALLOC_ARENA_MAX=${MALLOC_ARENAS}`)).toBe(restarts)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("an arena count the user set is kept", async () => {
    const { commandLine, environment, exit } = await serve("", "spawn", { MALLOC_ARENA_MAX: "4" })
    expect(commandLine.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`)).toBe(restarts)
    expect(environment.filter((v) => v.startsWith("MALLOC_ARENA_MAX="))).toEqual(["MALLOC_ARENA_MAX=4"])
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("started by fork() (an IPC channel, which a restart would lose): left as it is, and it still drains at SIGTERM", async () => {
    const { commandLine, environment, exit } = await serve("", "fork")
    expect(commandLine.some((a) => a.startsWith("--max-semi-space-size"))).toBe(false)
    expect(environment.some((v) => v.startsWith("MALLOC_ARENA_MAX="))).toBe(false)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("a size chosen in NODE_OPTIONS is left as it is, and nothing is added", async () => {
    const { commandLine, environment, exit } = await serve("--max-semi-space-size=0")
    expect(commandLine.some((a) => a.startsWith("--max-semi-space-size"))).toBe(false)
    expect(environment.some((v) => v.startsWith("MALLOC_ARENA_MAX="))).toBe(false)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)
})
