/**
 * `petstore serve --help` lists every variable that configures the server, with its default and
 * meaning, from one table (`Variables.ts`) held here to the configuration itself: every variable the
 * configuration reads is in it, and each default it states is the one the configuration applies.
 * `--log-level` takes the levels `PETSTORE_LOG_LEVEL` takes (its effect on `serve`: Logging.test.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Result } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { LOG_LEVELS, ServerConfig } from "../src/Config.js"
import * as ServeHelp from "../src/ServeHelp.js"
import { VARIABLES } from "../src/Variables.js"
import { cli } from "./support/ServerProcess.js"

/** The names of every variable the configuration reads from an empty environment. */
const namesRead = (): Set<string> => {
  const names = new Set<string>()
  // Every path asked for is noted, and none is set.
  const recording = ConfigProvider.make((path) => {
    names.add(path.join("_"))
    return Effect.succeed(undefined)
  })
  Effect.runSync(Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, recording))
  return names
}

const configFrom = (env: Record<string, string>) =>
  Effect.runSync(Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(env)))

describe("the table of variables", () => {
  it("names every variable the configuration reads, and no other", () => {
    expect([...namesRead()].sort()).toEqual(VARIABLES.map((v) => v.name).sort())
  })

  it("states the defaults the configuration applies: setting a variable to its stated default changes nothing", () => {
    const unset = configFrom({})
    const literal = VARIABLES.filter((v) => v.default !== null && v.derived !== true)
    expect(literal.length).toBeGreaterThan(15)
    for (const variable of literal) {
      expect(configFrom({ [variable.name]: variable.default! }), variable.name).toEqual(unset)
    }
  })

  it("is the README's table of variables, name for name and default for default", () => {
    const readme = Fs.readFileSync(Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "../../../README.md"), "utf8")
    const rows = [...readme.matchAll(/^\| `((?:PETSTORE_)?[A-Z0-9_]+)` \| ([^|]+) \|/gm)].map(([, name, byDefault]) => [name!, byDefault!.trim()])
    expect(rows.map(([name]) => name)).toEqual(VARIABLES.map((v) => v.name))
    for (const [name, byDefault] of rows) {
      const variable = VARIABLES.find((v) => v.name === name)!
      if (variable.derived !== true) expect(byDefault, name).toBe(variable.default === null ? "unset" : `\`${variable.default}\``)
    }
  })
})

describe("petstore serve --help", () => {
  it("prints the usage, the options and every variable with its default and meaning; exits 0", async () => {
    const run = await cli({}, ["serve", "--help"])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain("petstore serve [--log-level LEVEL]")
    expect(run.stdout).toContain(`--log-level ${LOG_LEVELS.join("|")}`)
    for (const variable of VARIABLES) {
      expect(run.stdout).toContain(`${variable.name} (default: ${variable.default ?? "unset"})\n      ${variable.meaning}`)
    }
    expect(run.stdout).not.toMatch(/\$ serve|--completions|--wizard|trace|fatal/)
  })

  it("the other commands' help leaves out the options every command has", async () => {
    const run = await cli({}, ["keys", "rotate", "--help"])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout).toContain("--grace-seconds")
    expect(run.stdout).not.toMatch(/--completions|--wizard|all \| trace/)
  })

  it("--log-level takes the levels of PETSTORE_LOG_LEVEL only, and says which", async () => {
    const run = await cli({ PETSTORE_STORE: "memory" }, ["serve", "--log-level", "trace"])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(`petstore: --log-level must be one of debug, info, warning, error, none (as PETSTORE_LOG_LEVEL), got "trace"\n`)
  })

  it("takeLogLevel: both spellings, anywhere in the command line", () => {
    const argv = ["node", "petstore"]
    expect(ServeHelp.takeLogLevel([...argv, "serve", "--log-level", "debug"])).toEqual(Result.succeed({ argv: [...argv, "serve"], level: "debug" }))
    expect(ServeHelp.takeLogLevel([...argv, "--log-level=none", "serve"])).toEqual(Result.succeed({ argv: [...argv, "serve"], level: "none" }))
    expect(ServeHelp.takeLogLevel([...argv, "serve"])).toEqual(Result.succeed({ argv: [...argv, "serve"], level: undefined }))
    expect(Result.isFailure(ServeHelp.takeLogLevel([...argv, "serve", "--log-level"]))).toBe(true)
  })
})
