/**
 * The `node` every pnpm script runs (node_modules/.bin/node, the project's own Node line) is that Node
 * itself, not a shell script that runs it as a child: a SIGTERM sent to it reaches the server, which
 * drains and exits 0 (a shell in between would die and leave the server running).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, pollUntil } from "./support/ServerProcess.js"

const ROOT = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../..")
const PROJECT_NODE = Path.join(ROOT, "node_modules", ".bin", "node")
const BUNDLE = Path.join(ROOT, "packages", "server", "bin", "petstore.cjs")

describe("the project's node", () => {
  it("is the Node binary itself (a link to it), not a script around it", () => {
    expect(Fs.lstatSync(PROJECT_NODE).isSymbolicLink()).toBe(true)
    expect(Fs.readFileSync(Fs.realpathSync(PROJECT_NODE)).subarray(0, 4)).toEqual(Buffer.from([0x7f, 0x45, 0x4c, 0x46]))
  })

  it("a SIGTERM to it reaches the server: drained, exit 0", async () => {
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-project-node-"))
    const child = spawn(PROJECT_NODE, [BUNDLE, "serve"], {
      env: { PATH: process.env.PATH ?? "", PETSTORE_DATABASE: Path.join(folder, "pets.db"), PORT: String(await freePort()), HOST: "127.0.0.1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (c) => (output += String(c)))
    child.stderr.on("data", (c) => (output += String(c)))
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })))
    try {
      await pollUntil("the server to listen", async () => /listening on/.test(output) ? true : undefined, 600, 50)
      child.kill("SIGTERM")
      const bound = new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 20_000).unref())
      expect(await Promise.race([ended, bound])).toEqual({ code: 0, signal: null })
      expect(output).toMatch(/stopped/)
    } finally {
      child.kill("SIGKILL")
      Fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
