#!/usr/bin/env node
// `pnpm bench --counter`: the ceiling of pet id allocation on PostgreSQL, measured with pgbench on a
// fresh database migrated by `petstore migrate`, the statement the only thing running on it. Each
// pgbench client sends a batched insert of `n` pets from `unnest(…) WITH ORDINALITY`, many clients at
// once, for several batch sizes: pets per second is batches per second × the batch size. Designs
// (`--design`, all by default, alternating):
// `row`, the server's statement (`PetRepositoryPg`: `petstore_take_pet_ids`, then the insert under the
// ids it gave) on a database that takes ids from the counter row (`pet_ids`, held until the insert
// commits: what databases made before migration 11 do until `petstore pet-ids --concurrent`);
// `concurrent`, the same statement on a database that takes them concurrently (the sequence, each
// insert holding a shared advisory lock below its ids: new databases, and after the switch);
// `sequence`, the same insert with ids from a bare sequence (no order kept: what no allocation at all
// would give, the machine's own ceiling for these inserts).
// Then listings (`--lists`, on by default): a page of 20 after a random id of a table of 100,000 pets,
// as `petstore_list_pets` reads it (`list-frontier`: the frontier read from `pg_locks` first) and as a
// bare keyset query (`list-plain`), with no insert running: the frontier's own cost.
//
//   node bench/capacity/counter.mjs [--batches 1,16,64,256,512] [--clients 16] [--duration 3] [--rounds 2] [--design row,concurrent,sequence] [--lists true] [--json FILE]
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Pg from "../lib/pg.mjs"
import * as Proc from "../lib/proc.mjs"
import { helpAndExit, logger, option, ROOT } from "./args.mjs"
import * as Targets from "../lib/targets.mjs"

helpAndExit(import.meta.url)

const argv = process.argv.slice(2)
const log = logger("counter")

/** The insert of `:b` pets, ids as `design` takes them, or a listing (pgbench script text). */
export const script = (design) => {
  const input = "unnest(array_fill('Bench'::text, ARRAY[:b::int]), array_fill(3::int8, ARRAY[:b::int]), array_fill('pending'::text, ARRAY[:b::int])) WITH ORDINALITY AS d(name, category_id, status, n)"
  if (design === "row" || design === "concurrent") {
    // The server's statement; which way the function takes ids is the database's (the counter row there or not).
    return `WITH taken AS (SELECT petstore_take_pet_ids(:b::int4) AS ids),
  inserted AS (INSERT INTO pets (id, name, category_id, status) SELECT taken.ids[d.n], d.name, d.category_id, d.status FROM taken, ${input} ORDER BY d.n)
  SELECT ids FROM taken;`
  }
  if (design === "sequence") {
    return `INSERT INTO pets (id, name, category_id, status) SELECT nextval('capacity_pet_ids'), d.name, d.category_id, d.status FROM ${input} ORDER BY d.n;`
  }
  if (design === "list-frontier") return "\\set after random(0, 99980)\nSELECT id, name, category_id, status FROM petstore_list_pets(:after, 20, NULL);"
  if (design === "list-plain") return "\\set after random(0, 99980)\nSELECT id, name, category_id, status FROM pets WHERE id > :after ORDER BY id LIMIT 20;"
  throw new Error(`unknown design ${design}`)
}

/** Sets the database up for `design`: the counter row there for `row`, gone for the others, every table empty (or 100,000 pets to list). */
const prepare = (url, design) => {
  const counter = design === "row" ? "INSERT INTO pet_ids (only_row, last) VALUES (true, 0)" : "SELECT 1"
  const fill = design.startsWith("list-")
    ? "INSERT INTO pets (id, name, category_id, status) SELECT i, 'Bench', 3, 'pending' FROM generate_series(1, 100000) AS i; SELECT setval('pet_id_sequence', 100000, true); ANALYZE pets;"
    : "SELECT setval('pet_id_sequence', 1, false);"
  execFileSync("psql", [url, "-qAtc", `TRUNCATE pets; DELETE FROM pet_ids; ${counter}; ALTER SEQUENCE capacity_pet_ids RESTART; ${fill} CHECKPOINT`])
}

/** One pgbench run: `clients` connections, each sending batches of `batch` pets for `seconds`. */
const pgbench = ({ url, design, batch, clients, seconds }) => {
  prepare(url, design)
  const dir = mkdtempSync(join(tmpdir(), "petstore-counter-"))
  try {
    const file = join(dir, "insert.sql")
    writeFileSync(file, `\\set b ${batch}\n${script(design)}\n`)
    const busy0 = Proc.machineBusySeconds()
    const run = spawnSync("pgbench", ["-n", "-M", "prepared", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", file, url], { encoding: "utf8" })
    const busy = (Proc.machineBusySeconds() - busy0) / seconds
    if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`)
    const tps = Number(/tps = ([\d.]+)/.exec(run.stdout)?.[1])
    const latency = Number(/latency average = ([\d.]+) ms/.exec(run.stdout)?.[1])
    return { design, batch, clients, batchesPerSecond: tps, petsPerSecond: tps * batch, latencyMs: latency, busyCores: busy }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const batches = option("batches", "1,16,64,256,512").split(",").map(Number)
  const clients = option("clients", "16").split(",").map(Number)
  const seconds = Number(option("duration", 3))
  const rounds = Number(option("rounds", 2))
  const inserts = option("design", "row,concurrent,sequence").split(",")
  const lists = option("lists", "true") === "true" ? ["list-frontier", "list-plain"] : []
  const name = Pg.databaseName("counter")
  await Pg.create(name)
  process.on("exit", () => Pg.dropSync([name]))
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130))
  const url = Pg.databaseUrl(name)
  execFileSync(process.execPath, [Targets.shipped(ROOT), "migrate"], { env: { ...process.env, PETSTORE_DATABASE: url }, stdio: ["ignore", "ignore", "inherit"] })
  // The bare sequence of `sequence` (a scratch object, not part of the schema).
  execFileSync("psql", [url, "-qAtc", "CREATE SEQUENCE capacity_pet_ids"])
  log(`load average ${Proc.loadAverage().join(" ")}`)
  const results = []
  for (let round = 0; round < rounds; round++) {
    for (const c of clients) {
      const runs = [...batches.flatMap((b) => inserts.map((design) => ({ b, design }))), ...lists.map((design) => ({ b: 20, design }))]
      for (const { b, design } of round % 2 === 0 ? runs : [...runs].reverse()) {
        const r = pgbench({ url, design, batch: b, clients: c, seconds })
        results.push({ round, ...r })
        log(`${design.padEnd(13)} batch ${String(b).padStart(3)} × ${c} clients: ${r.batchesPerSecond.toFixed(0)} batches/s = ${r.petsPerSecond.toFixed(0)} pets/s, latency ${r.latencyMs} ms, machine busy ${r.busyCores.toFixed(2)} cores`)
      }
    }
  }
  log(`load average ${Proc.loadAverage().join(" ")}`)
  const json = option("json", undefined)
  if (json !== undefined) writeFileSync(json, JSON.stringify(results, null, 2))
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  console.log("| design | clients | pets per batch (a listing's page) | batches/s (listings/s) | pets/s (median) | spread | latency ms | machine busy, cores |")
  console.log("|---|--:|--:|--:|--:|--:|--:|--:|")
  for (const [design, b] of [...inserts.flatMap((design) => batches.map((b) => [design, b])), ...lists.map((design) => [design, 20])]) for (const c of clients) {
    const mine = results.filter((r) => r.design === design && r.batch === b && r.clients === c)
    const pets = mine.map((r) => r.petsPerSecond)
    console.log(`| ${design} | ${c} | ${b} | ${med(mine.map((r) => r.batchesPerSecond)).toFixed(0)} | ${med(pets).toFixed(0)} | ${Math.min(...pets).toFixed(0)}–${Math.max(...pets).toFixed(0)} | ${med(mine.map((r) => r.latencyMs)).toFixed(2)} | ${med(mine.map((r) => r.busyCores)).toFixed(2)} |`)
  }
}
