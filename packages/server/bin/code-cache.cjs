// Runs the server's bundle (a CommonJS module) as Node's `require` would, but compiled by V8 from a
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
const Url = require("node:url")
const Vm = require("node:vm")
const Zlib = require("node:zlib")

const MAGIC = "petstore-v8-cache-1"

/**
 * How the bundle's file begins and ends (scripts/bundle.mjs writes it so): a comment, then the
 * function Node's CommonJS loader would wrap the module in, as an expression, which the script's
 * run returns. Compiled as it is, the file's text is the script's source: no copy of it is made.
 * One more parameter, `__petstoreFileUrl`: the file's URL, what `import.meta.url` is in the bundle's
 * ES modules. Strict, as the ES modules it was made from are.
 */
const WRAPPER_HEAD =
  "// The petstore server, bundled: a CommonJS module as its wrapper function; bin/petstore.cjs runs it.\n" +
  "(function (exports, require, module, __filename, __dirname, __petstoreFileUrl) {\"use strict\";"
const WRAPPER_TAIL = "\n})\n"

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
 * Compiles `file` (written as WRAPPER_HEAD, CommonJS code in ASCII, WRAPPER_TAIL), from the cache
 * when it can. Apart from the script, what it read (the cache's bytes) is garbage once this returns,
 * before the program runs.
 */
const compile = (file, cacheFile, head, usable) => {
  const cache = usable ? readCache(cacheFile, head) : "absent"
  // latin1: one byte a character, no UTF-8 decoding (the source is ASCII, so the text is the same).
  const source = Fs.readFileSync(file, "latin1")
  if (!source.startsWith(WRAPPER_HEAD)) throw new Error(`${file} is not a bundle of scripts/bundle.mjs`)
  const script = new Vm.Script(source, {
    filename: file,
    cachedData: typeof cache === "string" ? undefined : cache,
    importModuleDynamically: Vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER
  })
  const status = typeof cache === "string" ? (cache === "absent" ? "absent" : "rejected") : script.cachedDataRejected ? "rejected" : "used"
  return { script, status }
}

/**
 * Runs `file` as the main program. Returns whether V8 compiled it from the cache (`"used"`), or
 * from source: no cache (`"absent"`), or one that was not usable (`"rejected"`, by the checks above
 * or by V8). `cache: false`: neither read nor written (the bench's comparison).
 */
const runMain = (file, { cache = true } = {}) => {
  const cacheFile = `${file}.v8cache`
  const head = header(file)
  // (Node before 20.15 has no zlib.crc32: no cache there.)
  const usable = cache && typeof Zlib.crc32 === "function"
  const { script, status } = compile(file, cacheFile, head, usable)
  if (usable && status !== "used") process.once("exit", () => writeCache(cacheFile, head, script.createCachedData()))
  const directory = Path.dirname(file)
  const main = new Module(file, null)
  main.filename = file
  main.loaded = true
  script.runInThisContext()(main.exports, Module.createRequire(file), main, file, directory, Url.pathToFileURL(file).href)
  return status
}

module.exports = { runMain, WRAPPER_HEAD, WRAPPER_TAIL }
