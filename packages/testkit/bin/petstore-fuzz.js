#!/usr/bin/env node
// The `petstore-fuzz` command: the compiled CLI (run `pnpm build` first).
import "../dist/fuzz/bin.js"
