/**
 * The console's built files, found at start-up in one directory (what `packages/console` builds):
 * `manifest.json` names the entry script and style (`{"script": "main-<hash>.js", "style":
 * "main-<hash>.css"}`; `style` may be absent), and every other regular file of the directory (a
 * flat name with its content hash in it) is served at `/console/assets/<name>`. Each is read and
 * compressed (brotli and gzip) once, here: nothing is read or compressed per request.
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
  await Promise.all(entries.map(async (e) => {
    if (!e.isFile() || e.name === MANIFEST || !NAME.test(e.name)) return
    const bytes = await readFile(Path.join(directory, e.name))
    files.set(e.name, { asset: await CompressedAsset.compress(bytes), contentType: contentTypeOf(e.name) })
  }))
  const script = entry(manifest, "script", files)
  if (script === undefined) throw new Error(`${MANIFEST} names no script`)
  return { script, style: entry(manifest, "style", files), files }
}
