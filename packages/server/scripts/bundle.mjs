#!/usr/bin/env node
// `pnpm bundle`: the server as one bundled program, `packages/server/dist-bundle/petstore.mjs`, built
// by esbuild from the compiled `dist/bin.js` (run `pnpm run build` first; `pnpm bundle` does).
// `node packages/server/dist-bundle/petstore.mjs serve` is `petstore serve`, with the same
// configuration, but it loads a few files instead of hundreds of modules, and only the code the
// server reaches: what `effect/Schema` would load without being used (fast-check through
// `effect/Arbitrary`, …) is left out by tree-shaking. One file: what the server imports only on
// demand (the command line, the stores, Redis, tracing, prom-client) is in it too, but evaluated
// only when asked for, as before. (Not split into chunks: a chunk of a CommonJS package, such as
// prom-client, would only have a default export, where `import()` of the package has its names.)
// Native addons and what they load are not bundled:
// better-sqlite3 (and pg's optional pg-native) are loaded from node_modules as they are by `dist/`.
// Prints the files written and their sizes; `--metafile` also writes esbuild's metafile
// (dist-bundle/meta.json) for a look at what each file holds.
import * as esbuild from "esbuild"
import { rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const server = join(dirname(fileURLToPath(import.meta.url)), "..")

/** `import X from "<name>"` of each of `names` becomes `require("<name>")` where the importing module runs. */
const lazyNative = (names) => ({
  name: "lazy-native",
  setup(build) {
    const filter = new RegExp(`^(${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})$`)
    build.onResolve({ filter }, (args) =>
      args.namespace === "lazy-native" ? { path: args.path, external: true } : { path: args.path, namespace: "lazy-native" })
    build.onLoad({ filter: /.*/, namespace: "lazy-native" }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)})`,
      loader: "js"
    }))
  }
})
const outdir = join(server, "dist-bundle")
rmSync(outdir, { recursive: true, force: true })
const result = await esbuild.build({
  entryPoints: { petstore: join(server, "dist/bin.js") },
  outdir,
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".mjs" },
  // Native addons (and their optional companions) are required at run time from node_modules, and
  // only when the code that uses them runs: an ESM import of an external module would be hoisted to
  // the top of the file (loaded by every server), so the SQLite driver is reached through a
  // `require` inside the bundle instead (pg's `require("pg-native")` already is one).
  external: ["pg-native"],
  plugins: [lazyNative(["better-sqlite3"])],
  // The CommonJS modules in the bundle (pg, prom-client, …) get a `require` of their own.
  banner: { js: "import { createRequire as __petstoreCreateRequire } from \"node:module\"; const require = __petstoreCreateRequire(import.meta.url);" },
  legalComments: "none",
  // Smaller source text, which V8 keeps in memory: whitespace and syntax only (names stay, for stack traces).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: false,
  metafile: true,
  logLevel: "warning"
})
if (process.argv.includes("--metafile")) writeFileSync(join(outdir, "meta.json"), JSON.stringify(result.metafile))
const outputs = Object.entries(result.metafile.outputs)
for (const [file, { bytes }] of outputs) console.log(`${(bytes / 1024).toFixed(0).padStart(6)} KB  ${file.slice(file.indexOf("dist-bundle"))}`)
// The modules that have code in the output (tree-shaking leaves the others out).
const kept = outputs.flatMap(([, { inputs }]) => Object.entries(inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([name]) => name))
console.log(`${outputs.length} file(s) with code from ${kept.length} modules; from fast-check: ${kept.filter((i) => i.includes("fast-check")).length}`)
