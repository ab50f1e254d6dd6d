/**
 * Scalar's API reference as one browser script: the standalone bundle `effect` ships for
 * `HttpApiScalar` (its internal module `httpApiScalar.js`, `export const javascript = "…"`, megabytes).
 * It is read from that file when first asked for, never imported: importing the module would keep its
 * source and the string in memory in every process, even one nobody reads docs from (the cost is in
 * docs/performance.md).
 *
 * @internal
 */
import { readFileSync } from "node:fs"
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import * as Path from "node:path"

const effectDirectory = (): string =>
  Path.dirname(createRequire(import.meta.url).resolve("effect/package.json"))

/** The version of `effect`, which fixes the bundle's content (read once, at start-up). */
export const version = (): string =>
  (JSON.parse(readFileSync(Path.join(effectDirectory(), "package.json"), "utf8")) as { readonly version: string }).version

const EXPORT = "export const javascript="
// The bundle ends with a comment naming a source map this server does not have.
const SOURCE_MAP_COMMENT = /\n\/\/# sourceMappingURL=\S*\s*$/

/** The script's text: the string literal of the module, decoded (it is written as JSON). */
export const parse = (module: string): string => {
  const start = module.indexOf(EXPORT)
  const end = module.lastIndexOf("\";")
  if (start === -1 || end < start) throw new Error("effect's Scalar bundle has an unexpected shape")
  return (JSON.parse(module.slice(start + EXPORT.length, end + 1)) as string).replace(SOURCE_MAP_COMMENT, "\n")
}

/** Reads and decodes the bundle; fails when `effect` no longer ships it there. */
export const read = async (): Promise<string> =>
  parse(await readFile(Path.join(effectDirectory(), "dist", "http-api", "internal", "httpApiScalar.js"), "utf8"))
