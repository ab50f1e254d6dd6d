// Preloaded (`node --import`) into a server process by ServeModules.test.ts: every module the
// process imports (its resolved URL) is appended, one a line, to the file PETSTORE_TEST_MODULE_RECORD names.
import { register } from "node:module"

const hooks = `import { appendFileSync } from "node:fs"
let file
export async function initialize(data) { file = data.file }
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(file, resolved.url + "\\n")
  return resolved
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { file: process.env.PETSTORE_TEST_MODULE_RECORD } })
