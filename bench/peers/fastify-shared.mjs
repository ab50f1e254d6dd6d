// BASELINE — not the pet store. `peers/fastify-pg.mjs` (Fastify 5 + @fastify/rate-limit + `pg`,
// doing the same work per request as our server) made to run as several instances that behave as
// one, the way a Fastify user scales it out, so the bench can say how two instances of our server
// on PostgreSQL and Redis compare with two of these on the same PostgreSQL and Redis:
//   - the rate limit in Redis: @fastify/rate-limit's own Redis store, on an `ioredis` client (what
//     that store takes; the options its README shows: connectTimeout 500 ms, maxRetriesPerRequest 1),
//     key prefix BENCH_REDIS_PREFIX (`nameSpace`): one EVALSHA of its Lua script (INCR, then PTTL,
//     or PEXPIRE on a window's first request) per limited request, a fixed per-minute window per
//     account (no daily quota, bans or IETF RateLimit fields, as in fastify.mjs);
//   - accounts and keys in PostgreSQL (a key by its SHA-256 hash, as ours), so a key made through
//     one instance works on every other at once: a key found by hash is read with its account's
//     limits in one query and kept in memory for at most 1 s (our server's bound for a revocation
//     to reach every instance); unknown hashes are not kept;
//   - the cursor's HMAC secret in PostgreSQL (made by the first instance), so a `Link` from one
//     instance pages on another;
//   - the rest is fastify-pg.mjs unchanged: pets in PostgreSQL through a `pg` Pool of 10 per
//     instance with named prepared statements, each POST one autocommit `INSERT … RETURNING` on the
//     pool, each GET a `WHERE id > $1 ORDER BY id LIMIT $2` query, JSON-schema
//     validation, response schemas, `Location` on 201.
// BENCH_PG_URL names the database (created empty by the runner; the first instance creates the
// tables), BENCH_REDIS_URL the Redis (default redis://127.0.0.1:6379).
import rateLimit from "@fastify/rate-limit"
import Fastify from "fastify"
import Redis from "ioredis"
import pg from "pg"
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"

const ADMIN_TOKEN = process.env.PETSTORE_ADMIN_TOKEN ?? ""
const STATUSES = ["available", "pending", "sold"]
const MAX_ID = Number.MAX_SAFE_INTEGER

// --- accounts and keys (what Accounts.verify does: shape check, SHA-256, lookup), in PostgreSQL ------
const BEARER = /^bearer ([A-Za-z0-9\-._~+/]+=*)$/i
const KEY_PATTERN = /^psk_(live|test)_[0-9A-Za-z]{32}$/
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const sha256 = (s) => createHash("sha256").update(s).digest("hex")
const KEY_CACHE_MILLIS = 1_000 // the longest a key read from PostgreSQL is used without reading it again
const MAX_CACHED = 100_000 // above this many cached keys the cache starts over (it only saves reads)
const keysByHash = new Map() // sha256(key) → { principal, expiresAt, revokedAt, at }

const base62 = (n) => {
  let s = ""
  for (const b of randomBytes(n)) s += BASE62[b % 62]
  return s
}
const newKey = () => `psk_live_${base62(32)}`

const KEY_BY_HASH = `SELECT k.id, k.account_id AS "accountId", k.expires_at AS "expiresAt", k.revoked_at AS "revokedAt",
  a.per_minute AS "perMinute", a.per_day AS "perDay"
  FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.hash = $1`

/** The key's record, from this instance's memory when read less than KEY_CACHE_MILLIS ago. */
const keyByHash = async (hash, now) => {
  const cached = keysByHash.get(hash)
  if (cached !== undefined && now - cached.at < KEY_CACHE_MILLIS && now >= cached.at) return cached
  const { rows: [row] } = await pool.query({ name: "keys_by_hash", text: KEY_BY_HASH, values: [hash] })
  if (row === undefined) return undefined // not kept: a key made on another instance works at once
  const record = {
    principal: { accountId: row.accountId, keyId: row.id, limits: { perMinute: row.perMinute, perDay: row.perDay } },
    expiresAt: row.expiresAt,
    revokedAt: row.revokedAt,
    at: now
  }
  if (keysByHash.size >= MAX_CACHED) keysByHash.clear()
  keysByHash.set(hash, record)
  return record
}

const verify = async (header) => {
  if (header === undefined) return undefined
  const match = BEARER.exec(header)
  if (match === null) return undefined
  const token = match[1]
  if (token.length !== 41 || !KEY_PATTERN.test(token)) return undefined
  const now = Date.now()
  const key = await keyByHash(sha256(token), now)
  if (key === undefined) return undefined
  if ((key.revokedAt !== null && key.revokedAt <= now) || (key.expiresAt !== null && key.expiresAt <= now)) return undefined
  return key.principal
}

// --- pets, in PostgreSQL ----------------------------------------------------------------------------
const DATABASE_URL = process.env.BENCH_PG_URL
if (!DATABASE_URL) throw new Error("BENCH_PG_URL is required (a postgres:// URL of an existing, empty database)")
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v)) // ids and categories stay below 2^53
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 })
pool.on("error", (e) => console.error(`pg pool: ${e.message}`)) // an idle connection dropped by the server
// The schema, made once by whichever instance starts first (an advisory lock orders concurrent starts).
{
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    await client.query("SELECT pg_advisory_xact_lock(7262)")
    await client.query(`CREATE TABLE IF NOT EXISTS pets (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL,
      category_id bigint NOT NULL,
      status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
    )`)
    await client.query("CREATE INDEX IF NOT EXISTS pets_by_status ON pets (status, id)")
    await client.query(`CREATE TABLE IF NOT EXISTS accounts (
      id text PRIMARY KEY,
      plan text NOT NULL,
      per_minute integer NOT NULL,
      per_day bigint NOT NULL
    )`)
    await client.query(`CREATE TABLE IF NOT EXISTS api_keys (
      hash text PRIMARY KEY,
      id text NOT NULL UNIQUE,
      account_id text NOT NULL REFERENCES accounts (id),
      expires_at bigint,
      revoked_at bigint
    )`)
    await client.query("CREATE TABLE IF NOT EXISTS cursor_secret (id integer PRIMARY KEY CHECK (id = 1), secret bytea NOT NULL)")
    await client.query("INSERT INTO cursor_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING", [randomBytes(32)])
    await client.query("COMMIT")
  } finally {
    client.release()
  }
}

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

// --- cursors (what PageCursor does: base64url payload + truncated HMAC-SHA-256; one secret for all) -
const { rows: [{ secret: cursorKey }] } = await pool.query("SELECT secret FROM cursor_secret WHERE id = 1")
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
  const principal = await verify(request.headers.authorization)
  if (principal === undefined) {
    reply.code(401).header("WWW-Authenticate", "Bearer realm=\"petstore\"")
    return reply.send(error("unauthorized", "The API key is missing or invalid.", 401))
  }
  request.principal = principal
})

// --- the limit, in Redis -------------------------------------------------------------------------------
const redis = new Redis(process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379", { connectTimeout: 500, maxRetriesPerRequest: 1 })
redis.on("error", (e) => console.error(`redis: ${e.message}`))

await app.register(rateLimit, {
  global: true,
  redis,
  nameSpace: process.env.BENCH_REDIS_PREFIX ?? "fastify-rate-limit-",
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
  const id = `acc_${base62(22)}`
  const limits = request.body.limits ?? { perMinute: 60, perDay: 1000 }
  const key = newKey()
  const keyId = `key_${base62(22)}`
  const client = await pool.connect()
  try {
    await client.query("BEGIN")
    await client.query("INSERT INTO accounts (id, plan, per_minute, per_day) VALUES ($1, $2, $3, $4)", [id, request.body.plan, limits.perMinute, limits.perDay])
    await client.query("INSERT INTO api_keys (hash, id, account_id) VALUES ($1, $2, $3)", [sha256(key), keyId, id])
    await client.query("COMMIT")
    client.release()
  } catch (e) {
    await client.query("ROLLBACK").catch(() => {})
    client.release(e)
    throw e
  }
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
process.on("SIGTERM", () => app.close().then(() => pool.end()).then(() => redis.quit()).then(() => process.exit(0)))
