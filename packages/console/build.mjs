#!/usr/bin/env node
// The console's assets: esbuild bundles src/main.tsx (Preact, uPlot) and src/console.css (with
// uPlot's stylesheet) into `dist/`, minified, each file named by its content's hash
// (`main-<hash>.js`, `main-<hash>.css`), each beside its brotli (`.br`) and gzip (`.gz`) forms, and
// `dist/manifest.json` naming them: `{"script": "main-<hash>.js", "style": "main-<hash>.css",
// "files": [{"name", "bytes", "brotli", "gzip"}]}`. The server reads the manifest at start-up and
// serves the files at `/console/assets/<name>`, compressed as the request accepts, for a year
// (immutable: a change makes another name). Nothing is computed per request.
// Does nothing when dist/manifest.json is newer than every file of src/ and this script (`--force`:
// build anyway), so the root `pnpm run build` stays quick.
import * as esbuild from "esbuild"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Zlib from "node:zlib"

const root = dirname(fileURLToPath(import.meta.url))
const src = join(root, "src")
const dist = join(root, "dist")
const manifestFile = join(dist, "manifest.json")

const upToDate = () => {
  if (!existsSync(manifestFile)) return false
  const built = statSync(manifestFile).mtimeMs
  const inputs = [fileURLToPath(import.meta.url), join(root, "package.json"),
    ...readdirSync(src, { recursive: true }).map((file) => join(src, String(file)))]
  return inputs.every((input) => statSync(input).mtimeMs < built)
}
if (!process.argv.includes("--force") && upToDate()) {
  console.log("packages/console/dist is up to date")
  process.exit(0)
}

const staging = join(root, `dist.${process.pid}.tmp`)
rmSync(staging, { recursive: true, force: true })
process.once("exit", () => rmSync(staging, { recursive: true, force: true }))
const result = await esbuild.build({
  entryPoints: { main: join(src, "main.tsx") },
  absWorkingDir: root,
  outdir: staging,
  entryNames: "[name]-[hash]",
  bundle: true,
  minify: true,
  format: "esm",
  target: ["chrome110", "firefox110", "safari16"],
  jsx: "automatic",
  jsxImportSource: "preact",
  legalComments: "none",
  metafile: true,
  logLevel: "warning"
})
const names = Object.keys(result.metafile.outputs).map((file) => file.split("/").pop())
const script = names.find((name) => name.endsWith(".js"))
const style = names.find((name) => name.endsWith(".css"))
if (script === undefined || style === undefined) throw new Error(`esbuild wrote ${names.join(", ")}: a script and a style expected`)
const files = [script, style].map((name) => {
  const body = readFileSync(join(staging, name))
  const brotli = Zlib.brotliCompressSync(body, {
    params: { [Zlib.constants.BROTLI_PARAM_QUALITY]: 11, [Zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length }
  })
  const gzip = Zlib.gzipSync(body, { level: 9 })
  writeFileSync(join(staging, `${name}.br`), brotli)
  writeFileSync(join(staging, `${name}.gz`), gzip)
  return { name, bytes: body.length, brotli: brotli.length, gzip: gzip.length }
})
writeFileSync(join(staging, "manifest.json"), `${JSON.stringify({ script, style, files }, null, 2)}\n`)
rmSync(dist, { recursive: true, force: true })
mkdirSync(dirname(dist), { recursive: true })
renameSync(staging, dist)
for (const file of files) console.log(`packages/console/dist/${file.name}: ${file.bytes} bytes, ${file.brotli} brotli, ${file.gzip} gzip`)
