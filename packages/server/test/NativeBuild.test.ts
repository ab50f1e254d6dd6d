/**
 * The server started by a Node line its better-sqlite3 was not built for: one line on stderr naming
 * both lines and the command that rebuilds it, and a non-zero exit. The other line is the machine's
 * own Node (Debian's /usr/bin/node, or /usr/local/bin/node), when its ABI differs from the project's.
 */
import { describe, expect, it } from "@effect/vitest"
import { execFile, execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { BIN } from "./support/ServerProcess.js"

/** The machine's own Node (Debian's, or one installed beside it), when there is one. */
const OTHER_NODE = ["/usr/bin/node", "/usr/local/bin/node"].find((path) => Fs.existsSync(path)) ?? "/usr/bin/node"
const otherAbi = (): string | undefined => {
  try {
    return execFileSync(OTHER_NODE, ["-p", "process.versions.modules"], { encoding: "utf8" }).trim()
  } catch {
    return undefined
  }
}
const abi = otherAbi()
// A machine whose own Node is the project's line has nothing to show here, even under CI.
const sameLine = abi === process.versions.modules
const skip = abi === undefined ? `${OTHER_NODE} cannot be run` : sameLine ? `${OTHER_NODE} is the same Node line as the project's` : undefined

describe.skipIf(skip !== undefined && (process.env.CI !== "true" || sameLine))(`better-sqlite3 built for another Node line${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  it("petstore serve says so in one line, with the command that fixes it, and exits non-zero", async () => {
    expect(skip, "under CI the machine's own Node must be there").toBeUndefined()
    const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-native-"))
    const run = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(OTHER_NODE, [BIN, "serve"], {
        env: { PATH: process.env.PATH ?? "", PETSTORE_DATABASE: Path.join(folder, "pets.db"), PORT: "1", HOST: "127.0.0.1" },
        timeout: 60_000
      }, (error, _stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stderr })))
    Fs.rmSync(folder, { recursive: true, force: true })
    expect(run.code).not.toBe(0)
    const lines = run.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(new RegExp(
      `^petstore: better-sqlite3 was built for Node ${process.versions.node.split(".")[0]} \\(NODE_MODULE_VERSION ${process.versions.modules}\\), ` +
        `but this is Node [0-9.]+ \\(NODE_MODULE_VERSION ${abi}\\): rebuild it for this Node with \`.*pnpm rebuild better-sqlite3\``
    ))
  }, 60_000)
})
