#!/usr/bin/env node
// The server as one bundled program, `packages/server/dist-bundle/petstore.cjs`, built by esbuild
// from the compiled `dist/bin.js`; `pnpm run build` runs this after `tsc` (so `pnpm bundle` is
// `pnpm run build`). The `petstore` command (bin/petstore.cjs) runs it, compiled from a V8 code
// cache (`petstore.cjs.v8cache`, bin/code-cache.cjs) that this script makes by starting the bundled
// server once (`serve` on the in-memory store, on a free loopback port, until its first 200 on
// `GET /v1/pets`, then SIGTERM). It loads one file instead of hundreds of modules, and only the
// code the server reaches: what `effect/Schema` would load without being used (fast-check through
// `effect/Arbitrary`, …) is left out by tree-shaking. One file: what the server imports only on
// demand (the command line, the stores, Redis, tracing, prom-client) is in it too, but evaluated
// only when asked for, as before. (Not split into chunks: a chunk of a CommonJS package, such as
// prom-client, would only have a default export, where `import()` of the package has its names.)
// Native addons and what they load are not bundled:
// better-sqlite3 (and pg's optional pg-native) are loaded from node_modules as they are by `dist/`;
// so is undici (725 KB of source V8 would keep), needed only at the first webhook delivery.
// Does nothing when the bundle is newer than every input of the last build (`--force`: build anyway).
// Prints the files written and their sizes; `--metafile` also writes esbuild's metafile
// (dist-bundle/meta.json) for a look at what each file holds.
import * as esbuild from "esbuild"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Zlib from "node:zlib"

const server = join(dirname(fileURLToPath(import.meta.url)), "..")
const { WRAPPER_HEAD, WRAPPER_TAIL } = createRequire(import.meta.url)("../bin/code-cache.cjs")
// The repository: esbuild's working directory, so the bundle is the same wherever this runs from
// (its module names are paths from here), and the metafile's inputs are relative to it.
const root = join(server, "../..")

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
const bundle = join(outdir, "petstore.cjs")
const inputsFile = join(outdir, "inputs.json")
// Built and warmed in a directory of this build's own, then renamed into place: a `petstore` that
// starts meanwhile finds the previous bundle (or, for an instant, none: then it runs dist/), never a
// half-written one, and two builds at once do not remove each other's files.
const staging = join(server, `dist-bundle.${process.pid}.tmp`)
const staged = join(staging, "petstore.cjs")
// Nothing to do when the bundle and its cache are newer than every file that went into it (as
// esbuild's metafile listed them last time) and than this script, the loader and the start settings
// (the V8 flags the cache is made under): `pnpm start`
// builds first, and then only checks.
const upToDate = () => {
  try {
    const built = statSync(bundle).mtimeMs
    if (!existsSync(`${bundle}.v8cache`)) return false
    const inputs = [...JSON.parse(readFileSync(inputsFile, "utf8")), fileURLToPath(import.meta.url), join(server, "bin/code-cache.cjs"), join(server, "bin/start-settings.cjs")]
    return inputs.every((input) => statSync(resolve(root, input)).mtimeMs < built)
  } catch {
    return false
  }
}
if (!process.argv.includes("--force") && !process.argv.includes("--metafile") && upToDate()) {
  console.log("dist-bundle/petstore.cjs is up to date")
  process.exit(0)
}
rmSync(staging, { recursive: true, force: true })
process.once("exit", () => rmSync(staging, { recursive: true, force: true }))
const result = await esbuild.build({
  entryPoints: { petstore: join(server, "dist/bin.js") },
  absWorkingDir: root,
  outdir: staging,
  bundle: true,
  // CommonJS: a script V8 can compile from a code cache on Node 20 (`vm.Script` with `cachedData`,
  // see bin/code-cache.cjs); an ES module cannot be, before Node 22's module compile cache.
  format: "cjs",
  platform: "node",
  target: "node20",
  outExtension: { ".js": ".cjs" },
  // Native addons (and their optional companions) are required at run time from node_modules, and
  // only when the code that uses them runs: an ESM import of an external module would be hoisted to
  // the top of the file (loaded by every server), so the SQLite driver is reached through a
  // `require` inside the bundle instead (pg's `require("pg-native")` already is one). So is undici,
  // a dependency of the server itself with none of its own (WebhookClient's `import("undici")`: an
  // `import()` left in the bundle would not resolve from a `vm.Script`).
  external: ["pg-native"],
  plugins: [lazyNative(["better-sqlite3", "undici"])],
  // `import.meta.url` (the server's version from its package.json, the Scalar bundle's directory)
  // is the bundle's own file URL, as it is for the ES modules of `dist/`: a parameter of the wrapper
  // function the file is written as (below).
  define: { "import.meta.url": "__petstoreFileUrl" },
  legalComments: "none",
  // ASCII (non-ASCII characters escaped): the loader reads the file as latin1, without decoding UTF-8.
  charset: "ascii",
  // Smaller source text, which V8 keeps in memory: whitespace and syntax only (names stay, for stack traces).
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: false,
  metafile: true,
  logLevel: "warning"
})
if (process.argv.includes("--metafile")) writeFileSync(join(staging, "meta.json"), JSON.stringify(result.metafile))
const outputs = Object.entries(result.metafile.outputs)
for (const [file, { bytes }] of outputs) console.log(`${(bytes / 1024).toFixed(0).padStart(6)} KB  dist-bundle/${file.slice(file.lastIndexOf("/") + 1)}`)
// The modules that have code in the output (tree-shaking leaves the others out).
const kept = outputs.flatMap(([, { inputs }]) => Object.entries(inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([name]) => name))
console.log(`${outputs.length} file(s) with code from ${kept.length} modules; from fast-check: ${kept.filter((i) => i.includes("fast-check")).length}`)

// Written as the function Node's CommonJS loader would wrap it in (bin/code-cache.cjs compiles the
// file as it is: no copy of its 3.7 MB of source text joined to a wrapper, which V8 would keep).
const code = readFileSync(staged, "latin1").replace(/^#![^\n]*\n/, "")
if (/[^\x00-\x7f]/.test(code)) throw new Error(`${bundle} is not ASCII`)
writeFileSync(staged, `${WRAPPER_HEAD}${code}${WRAPPER_TAIL}`, "latin1")

/** A loopback port nothing listens on right now. */
const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })

/**
 * Starts the bundled server as `petstore serve` runs it (bin/petstore.cjs), on the in-memory store,
 * until it answers its first `GET /v1/pets` with 200, then stops it: it writes its code cache as it
 * exits, with every function compiled by then (start-up and the first request's path).
 */
const warmCodeCache = async () => {
  // Started as bin/petstore.cjs starts the bundle, from the staging directory (a runner of its own there).
  const runner = join(staging, "warm.cjs")
  writeFileSync(runner, `require(${JSON.stringify(join(server, "bin/code-cache.cjs"))}).runMain(${JSON.stringify(staged)})\n`)
  const port = await freePort()
  const token = randomBytes(24).toString("hex")
  const cwd = mkdtempSync(join(tmpdir(), "petstore-bundle-warm-"))
  const env = { ...process.env, PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: token, PORT: String(port), HOST: "127.0.0.1" }
  for (const name of Object.keys(env)) if (name.startsWith("PETSTORE_") && !(name in { PETSTORE_STORE: 1, PETSTORE_ADMIN_TOKEN: 1 })) delete env[name]
  delete env.NODE_OPTIONS
  // With the V8 flags bin/petstore.cjs starts the server with: V8 refuses a cache made under other flags.
  const { startFlags } = createRequire(import.meta.url)("../bin/start-settings.cjs")
  const child = spawn(process.execPath, [...startFlags(), runner, "serve"], { cwd, env, stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4_000)))
  const exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
  const base = `http://127.0.0.1:${port}`
  try {
    for (let tries = 0; ; tries++) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the bundled server exited before it answered:\n${stderr}`)
      try {
        const account = await fetch(`${base}/admin/v1/accounts`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ plan: "free" }),
          signal: AbortSignal.timeout(5_000)
        })
        if (account.status !== 201) throw new Error(`POST /admin/v1/accounts answered ${account.status}`)
        const { key } = await account.json()
        const pets = await fetch(`${base}/v1/pets`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5_000) })
        if (pets.status !== 200) throw new Error(`GET /v1/pets answered ${pets.status}`)
        await pets.arrayBuffer()
        break
      } catch (error) {
        if (tries >= 600) throw new Error(`the bundled server did not answer within 60 s: ${error.message}\n${stderr}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    // A server that does not stop within 10 s is killed (it then writes no cache: the check below says so).
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000)
    await exited
    clearTimeout(killer)
    rmSync(cwd, { recursive: true, force: true })
    rmSync(runner, { force: true })
  }
  if (!existsSync(`${staged}.v8cache`)) throw new Error(`the bundled server wrote no code cache (${bundle}.v8cache):\n${stderr}`)
}
// (Node before 20.15 has no zlib.crc32, which the loader needs to check a cache: no cache there.)
if (typeof Zlib.crc32 === "function") {
  // Once more on a failure (the free port taken by another process before the server bound it, say).
  await warmCodeCache().catch((error) => {
    console.log(`warming the code cache again after: ${error.message.split("\n")[0]}`)
    return warmCodeCache()
  })
}
// (Files only: the lazy-native plugin's inputs are not files.)
writeFileSync(join(staging, "inputs.json"), JSON.stringify(Object.keys(result.metafile.inputs).filter((input) => !input.includes(":"))))
if (existsSync(`${staged}.v8cache`)) {
  console.log(`${(readFileSync(`${staged}.v8cache`).length / 1024).toFixed(0).padStart(6)} KB  dist-bundle/petstore.cjs.v8cache`)
}
// Into place. Another build may rename its own in between: then once more (the last one stays).
for (let tries = 0; ; tries++) {
  rmSync(outdir, { recursive: true, force: true })
  try {
    renameSync(staging, outdir)
    break
  } catch (error) {
    if (tries >= 3 || !["ENOTEMPTY", "EEXIST"].includes(error.code)) throw error
  }
}
