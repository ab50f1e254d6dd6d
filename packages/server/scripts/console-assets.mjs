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
// Copied into a sibling folder, the old folder renamed away, the new one renamed in, then the old one
// removed: the folder is missing only between two renames, never while files are copied or deleted.
const staging = `${target}.${process.pid}.tmp`
const previous = `${target}.${process.pid}.old`
rmSync(staging, { recursive: true, force: true })
rmSync(previous, { recursive: true, force: true })
mkdirSync(staging)
for (const name of readdirSync(built)) cpSync(join(built, name), join(staging, name))
const hadOne = existsSync(target)
if (hadOne) renameSync(target, previous)
renameSync(staging, target)
if (hadOne) rmSync(previous, { recursive: true, force: true })
console.log(`console-assets: ${readdirSync(target).length} files in ${target}`)
