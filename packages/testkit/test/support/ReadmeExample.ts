/**
 * A package README's example (the ```js block after `<!-- example -->`), run as a user would run
 * it: a module of its own in the package's folder, so its imports resolve the package itself (by its
 * name, from its build) and its dependencies. `pnpm test` builds first.
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

export const packageDir = (name: string): string => Path.resolve(import.meta.dirname, "../../..", name)

export const exampleOf = (name: string): string => {
  const readme = Fs.readFileSync(Path.join(packageDir(name), "README.md"), "utf8")
  const match = /<!-- example -->\s*```js\n([\s\S]*?)```/.exec(readme)
  if (match === null) throw new Error(`packages/${name}/README.md has no example`)
  return match[1]!
}

/** Runs the example; resolves with what it printed, rejects with its stderr when it fails. */
export const runExample = (name: string, env: Record<string, string> = {}): Promise<string> => {
  const file = Path.join(packageDir(name), `.readme-example-${process.pid}.mjs`)
  Fs.writeFileSync(file, exampleOf(name))
  return new Promise<string>((resolve, reject) => {
    ChildProcess.execFile(process.execPath, [file], { env: { ...process.env, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      Fs.rmSync(file, { force: true })
      if (error) reject(new Error(`packages/${name}/README.md's example failed: ${stderr || error.message}`))
      else resolve(stdout)
    })
  })
}
