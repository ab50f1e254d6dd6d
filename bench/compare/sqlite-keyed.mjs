#!/usr/bin/env node
// What an `Idempotency-Key` costs SQLite itself: the statements of a durable create, as the group
// commit runs them (batches of `--batch` writes in one transaction, WAL, synchronous=FULL as the
// store opens its file), on a file of its own, alternating rounds: the pet's insert alone; the pet
// and its key's record as shipped (a rowid table, its primary key and the expiry index); and, for
// what a migration would buy, the record in a `WITHOUT ROWID` table, without the expiry index, and
// in the pet's own row (key columns on `pets`, a partial unique index and the expiry's index: no
// second row; a plain insert, where the shipped record's takes an expired key over). With
// `--random-keys`, every key is a random UUID as clients send them (the bench's keys are a counter,
// so each batch's records land side by side in the key's index). Prints the CPU (user + system) per
// write of each, medians of the rounds.
//
//   node bench/compare/sqlite-keyed.mjs [--rounds 5] [--writes 40000] [--batch 22] [--random-keys]
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { option } from "../lib/options.mjs"
import { median } from "../lib/stats.mjs"

const require = createRequire(new URL("../../packages/sqlite/package.json", import.meta.url))
const Database = require("better-sqlite3")
const argv = process.argv.slice(2)
const RANDOM_KEYS = argv.includes("--random-keys")
const ROUNDS = Number(option("rounds", 5))
const WRITES = Number(option("writes", 40_000))
const BATCH = Number(option("batch", 22))

const PETS = `CREATE TABLE pets (
  id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, category_id INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('available', 'pending', 'sold')));
  CREATE INDEX pets_by_status ON pets (status, id);`
const RECORDS = (tail, index) => `CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL, key TEXT NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  operation TEXT NOT NULL CHECK (operation IN ('createPet', 'createMessage')), fingerprint TEXT NOT NULL,
  resource_id TEXT NOT NULL, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key))${tail};` + (index ? "CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);" : "")
const UPSERT = `INSERT INTO idempotency_keys (account_id, key, operation, fingerprint, resource_id, created_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (account_id, key) DO UPDATE SET operation = excluded.operation, fingerprint = excluded.fingerprint,
    resource_id = excluded.resource_id, created_at = excluded.created_at, expires_at = excluded.expires_at
  WHERE idempotency_keys.expires_at <= excluded.created_at`

// The record in the pet's row: the key's columns on `pets`, unique per account where set.
const IN_ROW = `ALTER TABLE pets ADD COLUMN idempotency_account TEXT; ALTER TABLE pets ADD COLUMN idempotency_key TEXT;
  ALTER TABLE pets ADD COLUMN idempotency_fingerprint TEXT; ALTER TABLE pets ADD COLUMN idempotency_expires_at INTEGER;
  CREATE UNIQUE INDEX pets_by_idempotency_key ON pets (idempotency_account, idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX pets_by_idempotency_expiry ON pets (idempotency_expires_at) WHERE idempotency_expires_at IS NOT NULL;`
const IN_ROW_INSERT = `INSERT INTO pets (name, category_id, status, idempotency_account, idempotency_key, idempotency_fingerprint,
  idempotency_expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)`

const CASES = {
  "pet alone": null,
  "pet + record (as shipped)": RECORDS("", true),
  "pet + record, WITHOUT ROWID": RECORDS(" WITHOUT ROWID", true),
  "pet + record, no expiry index": RECORDS("", false),
  "record in the pet's row": IN_ROW
}

const FINGERPRINT = "9f2c".repeat(16)
const run = (name, schema) => {
  const dir = mkdtempSync(join(tmpdir(), "petstore-sqlite-keyed-"))
  const db = new Database(join(dir, "petstore.db"))
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  db.exec(PETS + (schema ?? ""))
  const inRow = schema === IN_ROW
  const pet = db.prepare(inRow ? IN_ROW_INSERT : "INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
  const record = schema === null || inRow ? undefined : db.prepare(UPSERT)
  const accountId = "acc_0123456789abcdefghijkl"
  let n = 0
  const keyOf = (i) => (RANDOM_KEYS ? randomUUID() : `bench-key-${process.pid}-${i}`)
  const batch = db.transaction((count) => {
    for (let i = 0; i < count; i++, n++) {
      const now = 1_790_000_000_000 + n
      if (inRow) {
        pet.run("Bench", 3, "pending", accountId, keyOf(n), FINGERPRINT, now + 86_400_000)
        continue
      }
      const id = pet.run("Bench", 3, "pending").lastInsertRowid
      if (record !== undefined) record.run(accountId, keyOf(n), "createPet", FINGERPRINT, String(id), now, now + 86_400_000)
    }
  })
  const before = process.cpuUsage()
  for (let done = 0; done < WRITES; done += BATCH) batch(Math.min(BATCH, WRITES - done))
  const used = process.cpuUsage(before)
  db.close()
  rmSync(dir, { recursive: true, force: true })
  return (used.user + used.system) / WRITES
}

const results = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]))
for (let r = 0; r < ROUNDS; r++) {
  const names = r % 2 === 0 ? Object.keys(CASES) : Object.keys(CASES).reverse()
  for (const name of names) results[name].push(run(name, CASES[name]))
}
const base = median(results["pet alone"])
console.log(`better-sqlite3 ${require("better-sqlite3/package.json").version}, ${WRITES} writes in batches of ${BATCH}, ${ROUNDS} rounds, ${RANDOM_KEYS ? "random UUID keys" : "keys from a counter"} (CPU µs per write, median; min–max)`)
for (const [name, xs] of Object.entries(results)) {
  console.log(`${name.padEnd(32)} ${median(xs).toFixed(2).padStart(7)}  (${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)})  +${(median(xs) - base).toFixed(2)}`)
}
