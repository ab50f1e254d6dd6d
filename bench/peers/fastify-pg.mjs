// BASELINE — not the pet store. `peers/fastify.mjs` (an idiomatic Fastify 5 build doing the same
// work per request as our server) with the pets in PostgreSQL instead of process memory, through
// `pg` (node-postgres), so the bench can say how our server on PostgreSQL compares with a well-known
// fast Node framework on the same database:
//   - a `pg` Pool of at most 10 connections (node-postgres's default `max`, and our server's default
//     PETSTORE_DATABASE_POOL_SIZE);
//   - named prepared statements (parsed once per connection; node-postgres's documented option, which
//     saves the peer a parse per query: a choice in its favour);
//   - every POST /v1/pets one autocommit `INSERT … RETURNING` through `pool.query`, as node-postgres's
//     documentation and common Fastify code write it (one round trip; one WAL flush per commit when
//     synchronous_commit is on): the "one commit per request" a plain PostgreSQL service does;
//   - every GET /v1/pets reads PostgreSQL: `WHERE id > $1 ORDER BY id LIMIT $2` (with `status = $1`
//     when filtered), limit+1 rows to know whether a page follows, on the same index shape as ours
//     (primary key on id, (status, id));
//   - the rest is fastify.mjs unchanged: bearer key by SHA-256 (accounts and keys stay in memory, as
//     there), @fastify/rate-limit per account and minute, JSON-schema validation, the same signed
//     cursor in `Link`, `Location` on 201, response schemas (fast-json-stringify).
// Ids come from an identity column (a sequence): an idiomatic choice that does not serialize inserts;
// our server takes ids from one locked counter row so paging stays exact under concurrent inserts
// (see packages/postgres/src/PetRepositoryPg.ts), which is more work per write than this peer does.
// BENCH_PG_URL names the database (created empty by the runner); the table is created at start.
import rateLimit from "@fastify/rate-limit"
import Fastify from "fastify"
import pg from "pg"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"

const ADMIN_TOKEN = process.env.PETSTORE_ADMIN_TOKEN ?? ""
const STATUSES = ["available", "pending", "sold"]
const MAX_ID = Number.MAX_SAFE_INTEGER

// --- accounts and keys (what Accounts.verify does: shape check, SHA-256, lookup) -------------------
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i
const KEY_PATTERN = /^psk_(live|test)_[0-9A-Za-z]{32}$/
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const sha256 = (s) => createHash("sha256").update(s).digest("hex")
const accounts = new Map() // id → { id, plan, limits }
const keysByHash = new Map() // sha256(key) → { id, accountId, expiresAt, revokedAt }
let nextAccount = 1

const newKey = () => {
  let secret = ""
  for (const b of randomBytes(32)) secret += BASE62[b % 62]
  return `psk_live_${secret}`
}

const verify = (header) => {
  if (header === undefined) return undefined
  const match = BEARER.exec(header)
  if (match === null) return undefined
  const token = match[1]
  if (token.length !== 41 || !KEY_PATTERN.test(token)) return undefined
  const key = keysByHash.get(sha256(token))
  if (key === undefined) return undefined
  const now = Date.now()
  if ((key.revokedAt !== null && key.revokedAt <= now) || (key.expiresAt !== null && key.expiresAt <= now)) return undefined
  const account = accounts.get(key.accountId)
  return account === undefined ? undefined : { accountId: account.id, keyId: key.id, limits: account.limits }
}

// --- pets, in PostgreSQL ----------------------------------------------------------------------------
const DATABASE_URL = process.env.BENCH_PG_URL
if (!DATABASE_URL) throw new Error("BENCH_PG_URL is required (a postgres:// URL of an existing, empty database)")
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v)) // ids and categories stay below 2^53
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 })
pool.on("error", (e) => console.error(`pg pool: ${e.message}`)) // an idle connection dropped by the server
await pool.query(`CREATE TABLE IF NOT EXISTS pets (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name text NOT NULL,
  category_id bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
)`)
await pool.query("CREATE INDEX IF NOT EXISTS pets_by_status ON pets (status, id)")

const COLUMNS = `id, name, category_id AS "categoryId", status`
const LIST = `SELECT ${COLUMNS} FROM pets WHERE id > $1 ORDER BY id LIMIT $2`
const LIST_BY_STATUS = `SELECT ${COLUMNS} FROM pets WHERE status = $1 AND id > $2 ORDER BY id LIMIT $3`
const INSERT = "INSERT INTO pets (name, category_id, status) VALUES ($1, $2, $3) RETURNING id"

/** Up to `n` pets after `afterId` (by `status` when given), in id order. */
const listAfter = async (afterId, status, n) => {
  const { rows } = status === undefined
    ? await pool.query({ name: "pets_list", text: LIST, values: [afterId, n] })
    : await pool.query({ name: "pets_list_by_status", text: LIST_BY_STATUS, values: [status, afterId, n] })
  return rows
}

/**
 * Inserts one pet; resolves once it is committed. One autocommit statement on the pool (`pool.query`,
 * as node-postgres documents it and as a Fastify service writes it): one round trip, one WAL flush.
 */
const insert = async (name, categoryId, status) => {
  const { rows: [row] } = await pool.query({ name: "pets_insert", text: INSERT, values: [name, categoryId, status] })
  return row.id
}

// --- cursors (what PageCursor does: base64url payload + truncated HMAC-SHA-256) ------------------
const cursorKey = randomBytes(32)
const sign = (payload) => createHmac("sha256", cursorKey).update(payload).digest("base64url").slice(0, 22)
const encodeCursor = (afterId, status) => {
  const payload = `${afterId.toString(36)}.${status === undefined ? 0 : STATUSES.indexOf(status) + 1}`
  return `${Buffer.from(payload).toString("base64url")}.${sign(payload)}`
}
const decodeCursor = (token) => {
  const dot = token.indexOf(".")
  if (dot <= 0) return undefined
  const body = token.slice(0, dot)
  const payload = Buffer.from(body, "base64url").toString()
  if (Buffer.from(payload).toString("base64url") !== body) return undefined
  const mac = Buffer.from(token.slice(dot + 1))
  const expected = Buffer.from(sign(payload))
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined
  const [idPart, statusPart] = payload.split(".")
  const afterId = parseInt(idPart, 36)
  const code = Number(statusPart)
  if (!Number.isSafeInteger(afterId) || afterId < 0 || !(code >= 0 && code <= 3)) return undefined
  return { afterId, status: code === 0 ? undefined : STATUSES[code - 1] }
}

// --- schemas ------------------------------------------------------------------------------------
const error = (code, message, status) => ({ code, message, status })
const Pet = {
  type: "object",
  required: ["id", "name", "categoryId", "status"],
  properties: {
    id: { type: "integer" },
    name: { type: "string" },
    categoryId: { type: "integer" },
    status: { type: "string", enum: STATUSES }
  }
}
const ErrorBody = {
  type: "object",
  properties: { code: { type: "string" }, message: { type: "string" }, status: { type: "integer" } }
}

const app = Fastify({ logger: false, keepAliveTimeout: 5_000, bodyLimit: 64 * 1024 })

app.decorateRequest("principal", null)
app.addHook("onRequest", async (request, reply) => {
  if (!request.url.startsWith("/v1/")) return
  const principal = verify(request.headers.authorization)
  if (principal === undefined) {
    reply.code(401).header("WWW-Authenticate", "Bearer realm=\"petstore\"")
    return reply.send(error("unauthorized", "The API key is missing or invalid.", 401))
  }
  request.principal = principal
})

await app.register(rateLimit, {
  global: true,
  hook: "preValidation",
  timeWindow: 60_000,
  keyGenerator: (request) => request.principal?.accountId ?? request.ip,
  max: (request) => request.principal?.limits.perMinute ?? 100,
  errorResponseBuilder: (_request, context) =>
    error("rate_limited", `Rate limit exceeded; retry after ${context.after}.`, context.statusCode)
})

app.post("/admin/v1/accounts", {
  config: { rateLimit: false },
  schema: {
    body: {
      type: "object",
      required: ["plan"],
      properties: {
        plan: { enum: ["free", "pro", "business", "enterprise"] },
        limits: {
          type: "object",
          required: ["perMinute", "perDay"],
          properties: {
            perMinute: { type: "integer", minimum: 1, maximum: 1_000_000 },
            perDay: { type: "integer", minimum: 1, maximum: 1_000_000_000 }
          }
        }
      }
    }
  }
}, async (request, reply) => {
  const given = Buffer.from(BEARER.exec(request.headers.authorization ?? "")?.[1] ?? "")
  const expected = Buffer.from(ADMIN_TOKEN)
  if (ADMIN_TOKEN === "" || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return reply.code(401).send(error("unauthorized", "admin token required", 401))
  }
  const id = `acc_${nextAccount++}`
  const limits = request.body.limits ?? { perMinute: 60, perDay: 1000 }
  accounts.set(id, { id, plan: request.body.plan, limits })
  const key = newKey()
  const keyId = `key_${id}`
  keysByHash.set(sha256(key), { id: keyId, accountId: id, expiresAt: null, revokedAt: null })
  return reply.code(201).send({ id, plan: request.body.plan, limits, key, keyId, prefix: key.slice(0, 13) })
})

app.get("/v1/pets", {
  schema: {
    querystring: {
      type: "object",
      properties: {
        limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        status: { type: "string", enum: STATUSES },
        cursor: { type: "string", maxLength: 128 }
      }
    },
    response: { 200: { type: "array", items: Pet }, "4xx": ErrorBody }
  }
}, async (request, reply) => {
  const { cursor, limit, status } = request.query
  let afterId = 0
  if (cursor !== undefined) {
    const position = decodeCursor(cursor)
    if (position === undefined || position.status !== status) {
      return reply.code(400).send(error("invalid_cursor", "The cursor is not valid for this query.", 400))
    }
    afterId = position.afterId
  }
  const rows = await listAfter(afterId, status, limit + 1)
  if (rows.length <= limit) return rows
  const pets = rows.slice(0, limit)
  const next = encodeCursor(pets[pets.length - 1].id, status)
  reply.header(
    "Link",
    `</v1/pets?limit=${limit}${status === undefined ? "" : `&status=${status}`}&cursor=${encodeURIComponent(next)}>; rel="next"`
  )
  return pets
})

app.post("/v1/pets", {
  schema: {
    body: {
      type: "object",
      required: ["name", "categoryId"],
      properties: {
        name: { type: "string", minLength: 1, maxLength: 256, pattern: "\\S" },
        categoryId: { type: "integer", minimum: 1, maximum: MAX_ID },
        status: { type: "string", enum: STATUSES }
      }
    },
    response: { 201: Pet, "4xx": ErrorBody }
  }
}, async (request, reply) => {
  const { categoryId, name, status } = request.body
  const stored = status ?? "available"
  const pet = { id: await insert(name, categoryId, stored), name, categoryId, status: stored }
  reply.code(201).header("Location", `/v1/pets/${pet.id}`)
  return pet
})

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })
console.log(JSON.stringify({ listening: Number(new URL(address).port) }))
process.on("SIGTERM", () => app.close().then(() => pool.end()).then(() => process.exit(0)))
