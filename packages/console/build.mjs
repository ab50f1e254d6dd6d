#!/usr/bin/env node
// Builds the console into dist/: each output named <name>-<hash>.<ext> (its content's hash), and
// dist/manifest.json naming the entry script and style: {"script": "main-<hash>.js", "style":
// "main-<hash>.css"}. The server serves every file of dist/ but the manifest at
// /console/assets/<name>, and its page loads the two the manifest names.
import * as esbuild from "esbuild"
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const outdir = join(here, "dist")
rmSync(outdir, { recursive: true, force: true })
mkdirSync(outdir, { recursive: true })
const result = await esbuild.build({
  entryPoints: { main: join(here, "src/main.ts") },
  outdir,
  bundle: true,
  format: "esm",
  minify: true,
  target: "es2022",
  entryNames: "[name]-[hash]",
  assetNames: "[name]-[hash]",
  metafile: true,
  logLevel: "warning"
})
const outputs = Object.entries(result.metafile.outputs)
const entry = outputs.find(([, output]) => output.entryPoint !== undefined)
if (entry === undefined) throw new Error("esbuild wrote no entry script")
const manifest = {
  script: basename(entry[0]),
  style: entry[1].cssBundle === undefined ? undefined : basename(entry[1].cssBundle)
}
writeFileSync(join(outdir, "manifest.json"), `${JSON.stringify(manifest)}\n`)
console.log(`console: ${outputs.length} files in ${outdir}`)
