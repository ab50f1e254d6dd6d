// Preloaded (`node --import`) into a server process by ServeModules.test.ts and Bundle.test.ts: every
// module the process imports or `require`s (its resolved URL), and every file the bundle's loader
// compiles (bin/code-cache.cjs, through `vm.Script`), is appended, one a line, to the file
// PETSTORE_TEST_MODULE_RECORD names. Node's built-in modules are not recorded.
import { appendFileSync } from "node:fs"
import Module, { createRequire, isBuiltin, register } from "node:module"
import { pathToFileURL } from "node:url"

const file = process.env.PETSTORE_TEST_MODULE_RECORD
const hooks = `import { appendFileSync } from "node:fs"
let file
export async function initialize(data) { file = data.file }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(file, resolved.url + "\\n")
  return resolved
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file } })

const record = (filename) => {
  if (typeof filename === "string" && !isBuiltin(filename) && filename.startsWith("/")) appendFileSync(file, `${pathToFileURL(filename).href}\n`)
}
const load = Module._load
Module._load = function(request, parent, isMain) {
  if (!isBuiltin(request)) record(Module._resolveFilename(request, parent, isMain))
  return load.apply(this, arguments)
}
const Vm = createRequire(import.meta.url)("node:vm") // the object `require("node:vm")` gives the loader
const Script = Vm.Script
Vm.Script = class extends Script {
  constructor(code, options) {
    super(code, options)
    record(options?.filename)
  }
}
