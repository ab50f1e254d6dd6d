#!/usr/bin/env node
// `pnpm bench --counter`: the ceiling of the pet id counter row (`pet_ids`), measured with pgbench on a
// fresh database migrated by `petstore migrate`, the statement the only thing running on it. Each
// pgbench client sends a batched insert of `n` pets from `unnest(…) WITH ORDINALITY`, many clients at
// once, for several batch sizes: pets per second is batches per second × the batch size. Designs
// (`--design`, all four by default, alternating):
// `row`, the server's statement (`PetRepositoryPg`: take `n` ids from the row — `UPDATE pet_ids …
// RETURNING`, whose lock is held until the insert commits — and insert the pets under them);
// `sequence`, the same insert with its ids from a sequence (no order kept: what no counter at all
// would give); and a proposal the server does not use (docs/capacity.md, *A proposal: ranges*):
// `ranges`, a range taken from the row in a short transaction of its own (asynchronous commit) and
// recorded in a table of open ranges, then the insert under it, removing its range;
// `allocate`, the only serialized part of `ranges` (the allocation, its range then removed). The
// table of open ranges is a scratch table this script makes in its scratch database
// (`capacity_pet_id_ranges`), not part of the schema.
//
//   node bench/capacity/counter.mjs [--batches 1,16,64,256,512] [--clients 16] [--duration 3] [--rounds 2] [--design row,ranges,allocate,sequence] [--json FILE]
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

/** The insert of `:b` pets, ids as `design` takes them (pgbench script text). */
export const script = (design) => {
  const input = "unnest(array_fill('Bench'::text, ARRAY[:b::int]), array_fill(3::int8, ARRAY[:b::int]), array_fill('pending'::text, ARRAY[:b::int])) WITH ORDINALITY AS d(name, category_id, status, n)"
  if (design === "row") {
    return `WITH taken AS (UPDATE pet_ids SET last = last + :b::int8 RETURNING last - :b::int8 AS before),
  inserted AS (INSERT INTO pets (id, name, category_id, status) SELECT taken.before + d.n, d.name, d.category_id, d.status FROM taken, ${input} ORDER BY d.n)
  SELECT before + 1 AS first FROM taken;`
  }
  if (design === "ranges") {
    // The proposal's two statements: take a range (short, asynchronous commit), recording it with a
    // 30 s expiry, then insert under it, removing its row.
    return `WITH taken AS (UPDATE pet_ids SET last = last + :b::int8 RETURNING last - :b::int8 + 1 AS first),
  expired AS (DELETE FROM capacity_pet_id_ranges WHERE first IN (SELECT first FROM capacity_pet_id_ranges WHERE expires_at < clock_timestamp() FOR UPDATE SKIP LOCKED)),
  recorded AS (INSERT INTO capacity_pet_id_ranges (first, count, expires_at) SELECT first, :b::int8, clock_timestamp() + make_interval(secs => 30) FROM taken)
  SELECT first, set_config('synchronous_commit', 'off', true) AS commit FROM taken \\gset
WITH taken AS (DELETE FROM capacity_pet_id_ranges WHERE first = :first::int8 RETURNING first - 1 AS before),
  inserted AS (INSERT INTO pets (id, name, category_id, status) SELECT taken.before + d.n, d.name, d.category_id, d.status FROM taken, ${input} ORDER BY d.n)
  SELECT before + 1 AS first FROM taken;`
  }
  if (design === "allocate") {
    // The serialized part of \`ranges\` alone: the allocation, then its range removed (asynchronously
    // committed too) so that the table of open ranges stays as small as the server keeps it.
    return `${script("ranges").split("\\gset")[0]}\\gset
WITH settled AS (DELETE FROM capacity_pet_id_ranges WHERE first = :first::int8 RETURNING 1) SELECT set_config('synchronous_commit', 'off', true), count(*) FROM settled;`
  }
  if (design === "sequence") {
    return `INSERT INTO pets (id, name, category_id, status) SELECT nextval('capacity_pet_ids'), d.name, d.category_id, d.status FROM ${input} ORDER BY d.n;`
  }
  throw new Error(`unknown design ${design}`)
}

/** One pgbench run: `clients` connections, each sending batches of `batch` pets for `seconds`. */
const pgbench = ({ url, design, batch, clients, seconds }) => {
  // Every run starts from an empty table, the counter and the sequence at 0.
  execFileSync("psql", [url, "-qAtc", "TRUNCATE pets, capacity_pet_id_ranges; UPDATE pet_ids SET last = 0; ALTER SEQUENCE capacity_pet_ids RESTART; CHECKPOINT"])
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
  const designs = option("design", "row,ranges,allocate,sequence").split(",")
  const name = Pg.databaseName("counter")
  await Pg.create(name)
  process.on("exit", () => Pg.dropSync([name]))
  for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130))
  const url = Pg.databaseUrl(name)
  execFileSync(process.execPath, [Targets.shipped(ROOT), "migrate"], { env: { ...process.env, PETSTORE_DATABASE: url }, stdio: ["ignore", "ignore", "inherit"] })
  // The scratch objects of `sequence` and of the proposal (`ranges`, `allocate`).
  execFileSync("psql", [url, "-qAtc", "CREATE SEQUENCE capacity_pet_ids; CREATE TABLE capacity_pet_id_ranges (first bigint PRIMARY KEY, count bigint NOT NULL, expires_at timestamptz NOT NULL)"])
  log(`load average ${Proc.loadAverage().join(" ")}`)
  const results = []
  for (let round = 0; round < rounds; round++) {
    for (const c of clients) {
      for (const b of round % 2 === 0 ? batches : [...batches].reverse()) {
        for (const design of round % 2 === 0 ? designs : [...designs].reverse()) {
          const r = pgbench({ url, design, batch: b, clients: c, seconds })
          results.push({ round, ...r })
          log(`${design.padEnd(8)} batch ${String(b).padStart(3)} × ${c} clients: ${r.batchesPerSecond.toFixed(0)} batches/s = ${r.petsPerSecond.toFixed(0)} pets/s, latency ${r.latencyMs} ms, machine busy ${r.busyCores.toFixed(2)} cores`)
        }
      }
    }
  }
  log(`load average ${Proc.loadAverage().join(" ")}`)
  const json = option("json", undefined)
  if (json !== undefined) writeFileSync(json, JSON.stringify(results, null, 2))
  const med = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  console.log("| design | clients | pets per batch | batches/s | pets/s (median) | spread | latency ms |")
  console.log("|---|--:|--:|--:|--:|--:|--:|")
  for (const design of designs) for (const c of clients) for (const b of batches) {
    const mine = results.filter((r) => r.design === design && r.batch === b && r.clients === c)
    const pets = mine.map((r) => r.petsPerSecond)
    console.log(`| ${design} | ${c} | ${b} | ${med(mine.map((r) => r.batchesPerSecond)).toFixed(0)} | ${med(pets).toFixed(0)} | ${Math.min(...pets).toFixed(0)}–${Math.max(...pets).toFixed(0)} | ${med(mine.map((r) => r.latencyMs)).toFixed(2)} |`)
  }
}
