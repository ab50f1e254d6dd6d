// BASELINE — not the pet store. node:http + better-sqlite3 doing what a durable store without group
// commit does: one INSERT, one transaction, one commit (one fsync of the WAL) per POST /v1/pets, with
// the durability our SQLite store promises (WAL, synchronous=FULL). It has no authentication, rate
// limit or validation, so it is an upper bound for "one commit per request"; the bench compares our
// durable POST with it. better-sqlite3 is the driver our SQLite package already depends on: it is
// resolved from there, so the bench adds no native dependency of its own.
import * as Http from "node:http"
import { createRequire } from "node:module"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { firstPage } from "../fixture.mjs"

const ROOT = fileURLToPath(new URL("../..", import.meta.url))

/** better-sqlite3 as packages/sqlite sees it (directly, or through @effect/sql-sqlite-node). */
export const resolveBetterSqlite3 = () => {
  const fromSqlite = createRequire(join(ROOT, "packages/sqlite/package.json"))
  try {
    return fromSqlite.resolve("better-sqlite3")
  } catch {
    const driver = fromSqlite.resolve("@effect/sql-sqlite-node")
    return createRequire(driver).resolve("better-sqlite3")
  }
}

const main = () => {
  const Database = createRequire(import.meta.url)(resolveBetterSqlite3())
  const file = process.env.BENCH_SQLITE_FILE
  if (!file) throw new Error("BENCH_SQLITE_FILE is required")
  const db = new Database(file)
  db.pragma("journal_mode = WAL")
  db.pragma("synchronous = FULL")
  db.exec("CREATE TABLE IF NOT EXISTS pets (id INTEGER PRIMARY KEY, name TEXT NOT NULL, category_id INTEGER NOT NULL, status TEXT NOT NULL)")
  const insert = db.prepare("INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?)")
  const page = Buffer.from(JSON.stringify(firstPage()))

  const server = Http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
    if (req.method !== "POST") {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": page.length })
      return res.end(page)
    }
    const chunks = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      const draft = JSON.parse(Buffer.concat(chunks).toString())
      const status = draft.status ?? "available"
      const id = Number(insert.run(draft.name, draft.categoryId, status).lastInsertRowid) // autocommit: one commit
      const body = Buffer.from(JSON.stringify({ id, name: draft.name, categoryId: draft.categoryId, status }))
      res.writeHead(201, { "Content-Type": "application/json", "Content-Length": body.length, Location: `/v1/pets/${id}` })
      res.end(body)
    })
  })
  server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
    console.log(JSON.stringify({ listening: server.address().port }))
  })
  process.on("SIGTERM", () => server.close(() => (db.close(), process.exit(0))).closeAllConnections())
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main()
