import { describe, expect, it } from "@effect/vitest"
import { wrongNativeBuild } from "../src/internal/nativeBuild.js"

/** Node's own message for an addon of another line, as `process.dlopen` throws it. */
const dlopenError = (built: number, required: number) =>
  Object.assign(
    new Error(
      "The module '/app/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\n" +
        "was compiled against a different Node.js version using\n" +
        `NODE_MODULE_VERSION ${built}. This version of Node.js requires\n` +
        `NODE_MODULE_VERSION ${required}. Please try re-compiling or re-installing\n` +
        "the module (for instance, using `npm rebuild` or `npm install`)."
    ),
    { code: "ERR_DLOPEN_FAILED" }
  )

describe("a native build for another Node line", () => {
  it("is one line: the line it was built for, the one running, and the command that rebuilds it", () => {
    const line = wrongNativeBuild(dlopenError(115, 147), { version: "v26.12.1", abi: "147", headers: "/opt/node26" })
    expect(line).toBe(
      "better-sqlite3 was built for Node 20 (NODE_MODULE_VERSION 115), but this is Node 26.12.1 (NODE_MODULE_VERSION 147): " +
        "rebuild it for this Node with `npm_config_nodedir=/opt/node26 npm_config_build_from_source=true pnpm rebuild better-sqlite3` " +
        "(npm: `npm rebuild better-sqlite3`)"
    )
    expect(line).not.toContain("\n")
  })

  it("names an ABI it does not know by its number, and leaves out the headers it cannot find", () => {
    expect(wrongNativeBuild(dlopenError(999, 137), { version: "v24.1.0", abi: "137", headers: undefined })).toBe(
      "better-sqlite3 was built for NODE_MODULE_VERSION 999, but this is Node 24.1.0 (NODE_MODULE_VERSION 137): " +
        "rebuild it for this Node with `npm_config_build_from_source=true pnpm rebuild better-sqlite3` (npm: `npm rebuild better-sqlite3`)"
    )
  })

  it("says nothing of any other error", () => {
    for (const error of [new Error("SQLITE_BUSY: database is locked"), "text", null, undefined, { message: 42 }]) {
      expect(wrongNativeBuild(error, { version: "v24.1.0", abi: "137", headers: undefined })).toBeUndefined()
    }
  })
})
