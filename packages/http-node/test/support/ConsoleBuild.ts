/**
 * A console build for the tests: a folder with `manifest.json`, a script and a style under hashed
 * names, as `packages/console` builds it (made once per test file, removed at exit).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

export interface ConsoleBuild {
  readonly directory: string
  readonly script: string
  readonly style: string
  /** The script's bytes. */
  readonly scriptText: string
}

export const make = (): ConsoleBuild => {
  const directory = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-console-"))
  const script = "main-AB12CD34.js"
  const style = "main-EF56GH78.css"
  // Large enough that compression shows.
  const scriptText = `console.log(${JSON.stringify("the console ".repeat(400))})\n`
  Fs.writeFileSync(Path.join(directory, script), scriptText)
  Fs.writeFileSync(Path.join(directory, style), "body { margin: 0 }\n")
  Fs.writeFileSync(Path.join(directory, "manifest.json"), JSON.stringify({ script, style }))
  process.once("exit", () => Fs.rmSync(directory, { recursive: true, force: true }))
  return { directory, script, style, scriptText }
}
