// Runs a copy of the bundle as bin/petstore.cjs does (`LOADER`: a copy of bin/code-cache.cjs,
// `BUNDLE`: the bundle beside it), with the rest of the command line, and prints on stderr, at exit,
// how V8 compiled it: `code cache: used` (or `absent`, `rejected`). For CodeCache.test.ts.
"use strict"
const status = require(process.env.LOADER).runMain(process.env.BUNDLE)
process.on("exit", () => process.stderr.write(`code cache: ${status}\n`))
