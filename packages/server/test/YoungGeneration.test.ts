/**
 * The young generation's size the `petstore` command starts the server with (bin/young-generation.cjs):
 * on Node 24 and later, when the user chose none, the same process (same id, so a signal still reaches
 * the server) runs with `--max-semi-space-size=12`; a size chosen in NODE_OPTIONS is left as it is; on
 * Node 20 and 22 (16 MB by default) nothing is added.
 */
import { describe, expect, it } from "@effect/vitest"
import { fork, spawn } from "node:child_process"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, pollUntil } from "./support/ServerProcess.js"

const { SEMI_SPACE_MB } = createRequire(import.meta.url)("../bin/young-generation.cjs") as { SEMI_SPACE_MB: number }

const COMMAND = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../bin/petstore.cjs")
const restarts = Number(process.versions.node.split(".")[0]) >= 24

/** Starts `petstore serve` on the in-memory store; answers its command line once it listens, then its exit. */
const serve = async (nodeOptions: string, how: "spawn" | "fork" = "spawn") => {
  const env = { PATH: process.env.PATH ?? "", PETSTORE_STORE: "memory", PORT: String(await freePort()), HOST: "127.0.0.1", NODE_OPTIONS: nodeOptions }
  const child = how === "spawn"
    ? spawn(process.execPath, [COMMAND, "serve"], { env, stdio: ["ignore", "pipe", "pipe"] })
    : fork(COMMAND, ["serve"], { env, execArgv: [], stdio: ["ignore", "pipe", "pipe", "ipc"] })
  let output = ""
  child.stdout!.on("data", (c) => (output += String(c)))
  child.stderr!.on("data", (c) => (output += String(c)))
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })))
  try {
    await pollUntil("the server to listen", () => /listening on/.test(output) ? true : undefined, 600, 50)
    const commandLine = Fs.readFileSync(`/proc/${child.pid}/cmdline`, "utf8").split("\0")
    child.kill("SIGTERM")
    return { commandLine, exit: await ended }
  } finally {
    child.kill("SIGKILL")
  }
}

describe.skipIf(process.platform !== "linux")("the young generation's size", () => {
  it(restarts ? "12 MB semi-spaces when the user chose none, in the same process" : "nothing added on a line whose default is 16 MB", async () => {
    expect(SEMI_SPACE_MB).toBe(12)
    const { commandLine, exit } = await serve("")
    expect(commandLine.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`)).toBe(restarts)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("started by fork() (an IPC channel, which a restart would lose): left as it is, and it still drains at SIGTERM", async () => {
    const { commandLine, exit } = await serve("", "fork")
    expect(commandLine.some((a) => a.startsWith("--max-semi-space-size"))).toBe(false)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)

  it("a size chosen in NODE_OPTIONS is left as it is", async () => {
    const { commandLine, exit } = await serve("--max-semi-space-size=0")
    expect(commandLine.some((a) => a.startsWith("--max-semi-space-size"))).toBe(false)
    expect(exit).toEqual({ code: 0, signal: null })
  }, 60_000)
})
