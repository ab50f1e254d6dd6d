#!/usr/bin/env node
// The `petstore` command: the compiled command line (run `pnpm build` first). A file of the
// repository, so installing the workspace links the command before anything is built.
import "../dist/bin.js"
