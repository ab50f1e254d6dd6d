#!/usr/bin/env node
// The `petstore-conformance` command: the compiled CLI (run `pnpm build` first).
import "../dist/bin.js"
