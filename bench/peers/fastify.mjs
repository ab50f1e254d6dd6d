// BASELINE — not the pet store. An idiomatic Fastify 5 build of GET /v1/pets and POST /v1/pets
// doing the same work per request as our server, with public packages only, so the bench can say
// how our serving path compares with a well-known fast Node framework:
//   - a bearer API key, shape-checked, then looked up by its SHA-256 hash (key → account → limits);
//   - a per-account per-minute limit with X-RateLimit-* headers (@fastify/rate-limit);
//   - JSON-schema validation of the query and the body (Ajv, compiled at start-up by Fastify);
//   - the same in-memory pets (append-only arrays, binary search, limit+1 to know if a page follows),
//     the same HMAC-signed page cursor in a `Link` header, `Location` on 201;
//   - response schemas, so Fastify serialises with fast-json-stringify, as a Fastify user would.
// Accounts are made through `POST /admin/v1/accounts` (admin token), like on our server, so the
// runner treats both alike. Not done (our server does more): daily quota, ban policy, the IETF
// RateLimit fields, the failed-authentication limit per address.
//
// With BENCH_FASTIFY_LOGGER=pino (the `fastify-pino` target) the same server logs each request as a
// Fastify user would: Fastify's own pino logger (`logger: true`, level info, JSON lines to stdout),
// which writes an "incoming request" and a "request completed" line (with the response time) per
// request. Without it (the `fastify` target) nothing is logged.
import rateLimit from "@fastify/rate-limit"
import Fastify from "fastify"
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

// --- pets (what PetRepository.makeMemory and Pets.list do) ---------------------------------------
const all = []
const byStatus = { available: [], pending: [], sold: [] }
let nextId = 1
const firstAfter = (pets, afterId) => {
  let lo = 0
  let hi = pets.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (pets[mid].id <= afterId) lo = mid + 1
    else hi = mid
  }
  return lo
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

const app = Fastify({ logger: process.env.BENCH_FASTIFY_LOGGER === "pino", keepAliveTimeout: 5_000, bodyLimit: 64 * 1024 })

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
  const source = status === undefined ? all : byStatus[status]
  const start = firstAfter(source, afterId)
  const rows = source.slice(start, start + limit + 1)
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
  const pet = { id: nextId++, name, categoryId, status: status ?? "available" }
  all.push(pet)
  byStatus[pet.status].push(pet)
  reply.code(201).header("Location", `/v1/pets/${pet.id}`)
  return pet
})

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: "127.0.0.1" })
console.log(JSON.stringify({ listening: Number(new URL(address).port) }))
process.on("SIGTERM", () => app.close().then(() => process.exit(0)))
