// The bundled server as `petstore` runs it (bin/petstore.cjs), but compiled from source every time:
// no code cache read or written. For bench/startup.mjs's `nocache` row.
"use strict"
const Path = require("node:path")

const server = Path.join(__dirname, "../../packages/server")
require(Path.join(server, "bin/code-cache.cjs")).runMain(Path.join(server, "dist-bundle/petstore.cjs"), { cache: false })
