/**
 * The console's built files, found at start-up in one directory (what `packages/console` builds):
 * `manifest.json` names the entry script and style (`{"script": "main-<hash>.js", "style":
 * "main-<hash>.css"}`; `style` may be absent), and every other regular file of the directory (a
 * flat name with its content hash in it) is served at `/console/assets/<name>`. Each is read and
 * compressed (brotli and gzip) once, here, unless the build left its compressed forms beside it
 * (`<name>.br`, `<name>.gz`, as `packages/console` does, at brotli's highest quality): those are
 * used as they are. Nothing is read or compressed per request.
 */
import { readdir, readFile } from "node:fs/promises"
import * as Path from "node:path"
import * as CompressedAsset from "../openapi/compressedAsset.js"

/** One file: its representations and its media type. */
export interface ConsoleFile {
  readonly asset: CompressedAsset.CompressedAsset
  readonly contentType: string
}

/** The console's files, and the two the page loads first. */
export interface ConsoleAssets {
  readonly script: string
  readonly style: string | undefined
  readonly files: ReadonlyMap<string, ConsoleFile>
}

/** The manifest's name in the directory. */
export const MANIFEST = "manifest.json"

/** A file's brotli or gzip form made at build (`<name>.br`, `<name>.gz`): served as `<name>`'s representations, not as a file. */
const PRECOMPRESSED = /\.(br|gz)$/

/** A file name served: letters, digits, `.`, `_`, `-`, not starting with a dot. */
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/

const TYPES: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/** The media type a file is served with, by its extension. */
export const contentTypeOf = (name: string): string => TYPES[Path.extname(name).toLowerCase()] ?? "application/octet-stream"

const entry = (manifest: Record<string, unknown>, key: string, files: ReadonlyMap<string, ConsoleFile>): string | undefined => {
  const name = manifest[key]
  if (name === undefined || name === null) return undefined
  if (typeof name !== "string" || !files.has(name)) throw new Error(`${MANIFEST}: ${key} names no file of the directory: ${JSON.stringify(name)}`)
  return name
}

/** Reads and compresses the console built in `directory`; fails when it has no valid manifest. */
export const load = async (directory: string): Promise<ConsoleAssets> => {
  const manifest = JSON.parse(await readFile(Path.join(directory, MANIFEST), "utf8")) as Record<string, unknown>
  const entries = await readdir(directory, { withFileTypes: true })
  const files = new Map<string, ConsoleFile>()
  const names = new Set(entries.filter((e) => e.isFile()).map((e) => e.name))
  await Promise.all([...names].map(async (name) => {
    if (name === MANIFEST || !NAME.test(name) || PRECOMPRESSED.test(name)) return
    const read = (file: string) => readFile(Path.join(directory, file))
    const bytes = await read(name)
    const asset = names.has(`${name}.br`) && names.has(`${name}.gz`)
      ? CompressedAsset.precompressed(bytes, await read(`${name}.br`), await read(`${name}.gz`))
      : await CompressedAsset.compress(bytes)
    files.set(name, { asset, contentType: contentTypeOf(name) })
  }))
  const script = entry(manifest, "script", files)
  if (script === undefined) throw new Error(`${MANIFEST} names no script`)
  return { script, style: entry(manifest, "style", files), files }
}
