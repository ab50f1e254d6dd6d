// Runs a CommonJS file (the server's bundle) as Node's `require` would, but compiled by V8 from a
// code cache kept beside it (`<file>.v8cache`) when there is a usable one: the start then skips
// parsing and compiling the file's 3–4 MB of source (Node 20 has no compile cache of its own; 22's
// `module.enableCompileCache()` is the same idea). The cache is V8's `createCachedData()` of the
// script, taken when the process exits, so it holds every function compiled until then (the whole
// start-up path, not only the top level). It is written (to a temporary file, then renamed, so a
// reader never sees half of one) only by a process that found none it could use; a read-only
// directory just means no cache. A cache of another build of the file (its size and mtime are in the
// cache's header), of another Node or V8 (checked by V8 itself: version, flags, source length), one
// whose bytes changed (a CRC-32 in the header: V8 checks none of its own) or one that cannot be read
// is not used: the file is compiled from source, as without a cache.
"use strict"
const Fs = require("node:fs")
const Module = require("node:module")
const Path = require("node:path")
const Vm = require("node:vm")
const Zlib = require("node:zlib")

const MAGIC = "petstore-v8-cache-1"

/** What identifies the build of `file` and the Node that reads it: the cache's first line. */
const header = (file) => {
  const stat = Fs.statSync(file)
  return `${MAGIC} ${stat.size} ${stat.mtimeMs} ${process.version} ${process.arch}`
}

/** The V8 data of `cacheFile`: `"absent"` if there is no such file, `"invalid"` if it was not made for this `head` or is not whole. */
const readCache = (cacheFile, head) => {
  let bytes
  try {
    bytes = Fs.readFileSync(cacheFile)
  } catch {
    return "absent"
  }
  const end = bytes.indexOf(10)
  const line = end === -1 ? "" : bytes.toString("latin1", 0, end)
  if (!line.startsWith(head) || line[head.length] !== " ") return "invalid"
  const data = bytes.subarray(end + 1)
  return data.length > 0 && String(Zlib.crc32(data)) === line.slice(head.length + 1) ? data : "invalid"
}

const writeCache = (cacheFile, head, data) => {
  const temporary = `${cacheFile}.${process.pid}.tmp`
  try {
    Fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${head} ${Zlib.crc32(data)}\n`, "latin1"), data]))
    Fs.renameSync(temporary, cacheFile)
  } catch {
    try {
      Fs.rmSync(temporary, { force: true })
    } catch {
      // nothing was written
    }
  }
}

/**
 * Runs `file` (CommonJS, ASCII source: esbuild's default output) as the main program. Returns
 * whether V8 compiled it from the cache (`"used"`), or from source: no cache (`"absent"`), or one
 * that was not usable (`"rejected"`, by the checks above or by V8).
 */
const runMain = (file) => {
  const cacheFile = `${file}.v8cache`
  const head = header(file)
  // (Node before 20.15 has no zlib.crc32: no cache there.)
  const usable = typeof Zlib.crc32 === "function"
  const cache = usable ? readCache(cacheFile, head) : "absent"
  const cachedData = typeof cache === "string" ? undefined : cache
  // latin1: one byte a character, no UTF-8 decoding (the source is ASCII, so the text is the same).
  const text = Fs.readFileSync(file, "latin1")
  // A `#!` line (esbuild keeps the entry's) is a comment of the same length inside the function.
  const source = text.startsWith("#!") ? `//${text.slice(2)}` : text
  const script = new Vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
    importModuleDynamically: Vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const status = typeof cache === "string" ? (cache === "absent" ? "absent" : "rejected") : script.cachedDataRejected ? "rejected" : "used"
  if (usable && status !== "used") process.once("exit", () => writeCache(cacheFile, head, script.createCachedData()))
  const directory = Path.dirname(file)
  const main = new Module(file, null)
  main.filename = file
  main.loaded = true
  script.runInThisContext()(main.exports, Module.createRequire(file), main, file, directory)
  return status
}

module.exports = { runMain }
