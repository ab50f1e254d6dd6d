#!/usr/bin/env node
// How long SQLite's COMMIT of one group-commit batch takes on this disk, with the server's settings
// (WAL, synchronous=FULL, automatic checkpoints): the part of a durable POST's wait that is the fsync.
//
//   node bench/sqlite-commits.mjs [--batch 50] [--batches 3000] [--no-autocheckpoint]
import { mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { resolveBetterSqlite3 } from "./peers/sqlite-commit-per-request.mjs"

const argv = process.argv.slice(2)
const option = (name, fallback) => (argv.includes(`--${name}`) ? Number(argv[argv.indexOf(`--${name}`) + 1]) : fallback)
const batch = option("batch", 50)
const batches = option("batches", 3000)

const Database = createRequire(import.meta.url)(resolveBetterSqlite3())
const dir = mkdtempSync(join(tmpdir(), "petstore-commits-"))
try {
  const db = new Database(join(dir, "commits.db"))
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  if (argv.includes("--no-autocheckpoint")) db.pragma("wal_autocheckpoint = 0")
  db.exec("CREATE TABLE pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category_id INTEGER NOT NULL, status TEXT NOT NULL)")
  const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
  const begin = db.prepare("BEGIN IMMEDIATE")
  const commit = db.prepare("COMMIT")
  const millis = []
  for (let b = 0; b < batches; b++) {
    begin.run()
    for (let i = 0; i < batch; i++) insert.run("Bench", 3, "pending")
    const start = performance.now()
    commit.run()
    millis.push(performance.now() - start)
  }
  db.close()
  millis.sort((a, b) => a - b)
  const at = (q) => millis[Math.min(millis.length - 1, Math.floor(q * millis.length))].toFixed(2)
  console.log(`COMMIT of ${batch} rows, ${batches} times: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms, max ${millis.at(-1).toFixed(2)} ms`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
