#!/usr/bin/env node
// Copies the operator console's build (packages/console/dist: manifest.json and the hashed files it
// is made of) into this package's folder `console`, where the server reads it at start-up and the
// published package carries it. `pnpm run build` runs this after the console's build. Without a
// console build (the console package absent) it leaves the folder as it is and says so.
import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const server = join(dirname(fileURLToPath(import.meta.url)), "..")
const built = join(server, "../console/dist")
const target = join(server, "console")
if (!existsSync(join(built, "manifest.json"))) {
  console.log(`console-assets: no console build at ${built}; ${target} left as it is`)
  process.exit(0)
}
// Copied beside, then renamed into place: a server starting meanwhile reads the old build or the new one.
const staging = `${target}.${process.pid}.tmp`
rmSync(staging, { recursive: true, force: true })
mkdirSync(staging)
for (const name of readdirSync(built)) cpSync(join(built, name), join(staging, name))
rmSync(target, { recursive: true, force: true })
renameSync(staging, target)
console.log(`console-assets: ${readdirSync(target).length} files in ${target}`)
