/**
 * The fault classes the conformance suite claims to catch, each planted in the project's server
 * (test-only: built here by wrapping the application's answers or the rate limiter), with what the
 * report must say. test/FaultInjection.test.ts requires the default run to catch every one.
 */
import { BanPolicy, LimitDecision, RateLimiter, TokenBucket } from "@petstore/core"
import { Clock, Effect } from "effect"
import type { AppResponse } from "@petstore/http-node"
import type { ServerVariant } from "./InProcessServer.js"

type Limiter = RateLimiter.RateLimiter["Service"]
type Corrupt = NonNullable<ServerVariant["corrupt"]>

export const errorResponse = (response: AppResponse.AppResponse, status: number, code: string): AppResponse.AppResponse => ({
  status,
  headers: { ...response.headers, "Content-Type": "application/json" },
  body: JSON.stringify({ code, message: "injected fault", status })
})

/** Admits the first request refused after a run of admitted ones: a bucket that holds one token too many. */
const offByOneLimit = (real: Limiter): Limiter => {
  const lastAllowed = new Map<string, boolean>()
  return {
    ...real,
    admit: (subject) =>
      Effect.map(real.admit(subject), (decision) => {
        const previous = lastAllowed.get(subject.accountId) ?? true
        if (decision.verdict === "rate_limited" && previous) {
          lastAllowed.set(subject.accountId, false)
          return { ...decision, verdict: "allowed" as const, retryAfterMillis: 0 }
        }
        lastAllowed.set(subject.accountId, decision.verdict === "allowed")
        return decision
      })
  }
}

/** The limiter's own state, with the bug that a refused request still takes a token. */
const consumingOnReject = (real: Limiter): Limiter => {
  const usage = new Map<string, LimitDecision.AccountUsage>()
  const standings = new Map<string, BanPolicy.KeyStanding>()
  return {
    ...real,
    admit: ({ accountId, keyId, limits }) => Effect.map(Clock.currentTimeMillis, (now) => {
      const before = usage.get(accountId) ?? LimitDecision.freshUsage(limits, now)
      const next = LimitDecision.decide(limits, before, standings.get(keyId) ?? BanPolicy.CLEAN, now, 1, BanPolicy.DEFAULT_OPTIONS)
      const after = next.decision.verdict === "rate_limited"
        ? { ...next.usage, bucket: TokenBucket.take(next.usage.bucket, 1) }
        : next.usage
      usage.set(accountId, after)
      standings.set(keyId, next.standing)
      return next.decision
    })
  }
}

/**
 * Not atomic: reads the account's usage, pauses (as a round trip to a store would), then decides on
 * what it read and writes it back, so requests decided at the same time all see the same tokens.
 */
const nonAtomic = (): Limiter => {
  const usage = new Map<string, LimitDecision.AccountUsage>()
  const standings = new Map<string, BanPolicy.KeyStanding>()
  const real = RateLimiter.makeMemory(RateLimiter.DEFAULT_OPTIONS)
  return {
    ...real,
    admit: ({ accountId, keyId, limits }) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const before = usage.get(accountId) ?? LimitDecision.freshUsage(limits, now)
        const standing = standings.get(keyId) ?? BanPolicy.CLEAN
        yield* Effect.sleep("5 millis")
        const next = LimitDecision.decide(limits, before, standing, now, 1, BanPolicy.DEFAULT_OPTIONS)
        usage.set(accountId, next.usage)
        standings.set(keyId, next.standing)
        return next.decision
      })
  }
}

/** Never bans: a key that keeps sending while told to wait only ever gets rate_limited. */
const neverBans = (real: Limiter): Limiter =>
  ({
    ...real,
    admit: (subject) =>
      Effect.map(real.admit(subject), (decision) =>
        decision.verdict === "key_banned"
          ? { ...decision, verdict: "rate_limited" as const, retryAfterMillis: 1_000 }
          : decision)
  })

/** No grace: refused requests sent right after a wait's first refusal count toward a ban. */
const noGrace = (): Limiter =>
  RateLimiter.makeMemory({ ...RateLimiter.DEFAULT_OPTIONS, ban: { ...BanPolicy.DEFAULT_OPTIONS, graceMillis: 0 } })

/** Answers 404 to a read of the pet (message) the server created last: a read that misses the latest write. */
export const latestNotFound = (collection: "pets" | "messages", created: number): Corrupt => {
  let latest: string | undefined
  return (req, res) => {
    if (req.method === "POST" && req.url === `/v1/${collection}` && res.status === created && res.body !== undefined) {
      latest = String((JSON.parse(res.body) as { id: unknown }).id)
    }
    if (req.method === "GET" && latest !== undefined && req.url === `/v1/${collection}/${latest}` && res.status === 200) {
      return errorResponse(res, 404, "not_found")
    }
    return res
  }
}

const isListing = (req: { readonly method: string; readonly url: string }, res: AppResponse.AppResponse) =>
  req.method === "GET" && /^\/v1\/pets(\?|$)/.test(req.url) && res.status === 200 && res.body !== undefined

/** Edits the pets of each listing page (the rest of the answer kept); `last`: the page has no next link. */
export const editListing = (edit: (pets: Array<{ readonly id: number }>, url: string, last: boolean) => Array<unknown>): Corrupt => (req, res) =>
  isListing(req, res)
    ? { ...res, body: JSON.stringify(edit(JSON.parse(res.body!) as Array<{ readonly id: number }>, req.url, res.headers["Link"] === undefined)) }
    : res

/**
 * Once the server has created three pets, the last page of an unfiltered listing (only of
 * `GET /v1/pets?limit=100`, the inventory's, when `inventoryOnly`) shows a pet nobody created.
 */
export const ghostPet = (inventoryOnly: boolean): Corrupt => {
  let created = 0
  const edit = editListing((pets, url, last) => {
    const unfiltered = inventoryOnly ? url === "/v1/pets?limit=100" : !url.includes("status=")
    return created >= 3 && unfiltered && last
      ? [...pets, { id: 9_000_000_000_000, name: "ghost", categoryId: 1, status: "available" }]
      : pets
  })
  return (req, res) => {
    if (req.method === "POST" && req.url === "/v1/pets" && res.status === 201) created++
    return edit(req, res)
  }
}

/** The inventory's own listing (`GET /v1/pets?limit=100`, unfiltered) drops the newest pet. */
export const inventoryDropsNewest: Corrupt = editListing((pets, url, last) => (url === "/v1/pets?limit=100" && last ? pets.slice(0, -1) : pets))

/** Leaves a header out of every answer with the status. */
const withoutHeader = (status: number, name: string): Corrupt => (_req, res) => {
  if (res.status !== status) return res
  const { [name]: _, ...headers } = res.headers
  return { ...res, headers }
}

/** Edits the served OpenAPI document. */
const editDocument = (edit: (doc: Record<string, any>) => void): Corrupt => (req, res) => {
  if (req.method !== "GET" || req.url !== "/v1/openapi.json" || res.status !== 200 || res.body === undefined) return res
  const doc = JSON.parse(res.body) as Record<string, any>
  edit(doc)
  return { ...res, body: JSON.stringify(doc) }
}

/** Rewrites one header of every answer that has it. */
const rewriteHeader = (name: string, rewrite: (value: string) => string): Corrupt => (_req, res) => {
  const value = res.headers[name]
  return value === undefined ? res : { ...res, headers: { ...res.headers, [name]: rewrite(value) } }
}

/** Replaces the code of every error answer with the status. */
const wrongCode = (status: number, code: string, when: (url: string) => boolean = () => true): Corrupt => (req, res) =>
  res.status === status && when(req.url) ? errorResponse(res, status, code) : res

/** Writes every message's createdAt with a +00:00 offset instead of Z. */
const offsetTimestamps: Corrupt = (req, res) =>
  req.url.startsWith("/v1/messages") && res.body !== undefined && res.status < 300
    ? { ...res, body: res.body.replace(/"createdAt":"([^"]+)Z"/g, "\"createdAt\":\"$1+00:00\"") }
    : res

const errorCodeOf = (res: AppResponse.AppResponse): string | undefined => {
  if (res.status < 400 || res.body === undefined) return undefined
  return (JSON.parse(res.body) as { code?: string }).code
}

/**
 * A listing that is a snapshot: the last page of a paged listing leaves out the pets created after
 * its first page was served (pets created while a client pages never reach it).
 */
const snapshotListing = (): Corrupt => {
  let newest = 0
  let snapshot = 0
  return (req, res) => {
    if (req.method === "POST" && req.url === "/v1/pets" && res.status === 201) newest = (JSON.parse(res.body!) as { id: number }).id
    if (!isListing(req, res)) return res
    if (!req.url.includes("cursor=")) snapshot = newest
    if (!req.url.includes("cursor=") || res.headers["Link"] !== undefined) return res
    const pets = JSON.parse(res.body!) as Array<{ readonly id: number }>
    return { ...res, body: JSON.stringify(pets.filter((p) => p.id <= snapshot)) }
  }
}

/** Each planted fault, and what the failure message must match. */
export const PLANTED_FAULTS: ReadonlyArray<{ readonly name: string; readonly variant: ServerVariant; readonly caught: RegExp }> = [
  {
    name: "off-by-one limit (one request too many admitted per burst)",
    variant: { limiter: offByOneLimit },
    // One too many is found by the sequence that empties the bucket, or by a burst that gets one more than it held.
    caught: /admitted \(20[01]\) although account .* bucket must be empty|\d+ admitted, but account \w+'s bucket held at most/
  },
  {
    name: "the limiter consuming a token on a refused request",
    variant: { limiter: consumingOnReject },
    caught: /X-RateLimit-Remaining|Retry-After|must have a token|bucket/
  },
  {
    name: "no bans for keys that keep sending while told to wait",
    variant: { limiter: neverBans },
    caught: /expected a ban \(key_banned\)/
  },
  {
    name: "bans counting the requests sent within the grace after a wait's first refusal",
    variant: { limiter: noGrace },
    caught: /key_banned, but key .* sent at most \d+ early requests after the grace/
  },
  {
    name: "a limiter that is not atomic (requests decided at once all see the same tokens)",
    variant: { limiter: nonAtomic },
    caught: /admitted, but account .* bucket held at most|bucket must be empty|requests left this minute|requests left today|daily quota/
  },
  {
    name: "a paged listing that is a snapshot (pets created while a client pages never reach it)",
    variant: { corrupt: snapshotListing() },
    caught: /were acknowledged before the last page was asked for, but no page listed them|skipped/
  },
  {
    name: "missing X-RateLimit-Remaining on 404",
    variant: { corrupt: withoutHeader(404, "X-RateLimit-Remaining") },
    caught: /X-RateLimit-Remaining is missing/
  },
  {
    name: "500 on a malformed cursor",
    variant: { corrupt: (req, res) => (req.url.includes("cursor=") && res.status === 400 ? errorResponse(res, 500, "internal_error") : res) },
    caught: /a server error \(any 5xx fails\)/
  },
  {
    name: "401 without WWW-Authenticate",
    variant: { corrupt: withoutHeader(401, "WWW-Authenticate") },
    caught: /WWW-Authenticate/
  },
  {
    name: "a listing that drops the first pet of every page",
    variant: { corrupt: editListing((pets) => (pets.length < 2 ? pets : pets.slice(1))) },
    caught: /skipped|must be full/
  },
  {
    name: "a listing that repeats the first pet of a page at its end",
    variant: { corrupt: editListing((pets) => (pets.length === 0 ? pets : [...pets, pets[0]])) },
    caught: /listed twice|not ascending|more than limit/
  },
  {
    name: "a pet in the listing that the server never acknowledged creating",
    variant: { corrupt: ghostPet(false) },
    caught: /never acknowledged creating it|not above every id seen before|more than limit/
  },
  {
    name: "404 for the pet it has just acknowledged with 201",
    variant: { corrupt: latestNotFound("pets", 201) },
    caught: /read-your-writes: GET \/v1\/pets\/\d+ → 404, right after the 201/
  },
  {
    name: "404 for the message it has just accepted with 202",
    variant: { corrupt: latestNotFound("messages", 202) },
    caught: /read-your-writes: GET \/v1\/messages\/\S+ → 404, right after the 202/
  },
  {
    name: "a document that says openapi: 3.1.0",
    variant: { corrupt: editDocument((doc) => void (doc.openapi = "3.1.0")) },
    caught: /openapi is "3\.1\.0": the interface is OpenAPI 3\.0\.x/
  },
  {
    name: "a document without the operation id getPet",
    variant: { corrupt: editDocument((doc) => void delete doc.paths["/v1/pets/{petId}"].get.operationId) },
    caught: /operationId undefined, expected getPet/
  },
  {
    name: "a document without the tag animals on createPet",
    variant: { corrupt: editDocument((doc) => void (doc.paths["/v1/pets"].post.tags = [])) },
    caught: /POST \/v1\/pets: not tagged animals/
  },
  {
    name: "a document without the bearer security scheme",
    variant: { corrupt: editDocument((doc) => void delete doc.components.securitySchemes) },
    caught: /no security scheme of type http, scheme bearer/
  },
  {
    name: "a document that leaves out the 429 of createPet",
    variant: { corrupt: editDocument((doc) => void delete doc.paths["/v1/pets"].post.responses["429"]) },
    caught: /POST \/v1\/pets: status 429 is not documented/
  },
  {
    name: "a document that leaves out Retry-After on the 429 of listPets",
    variant: { corrupt: editDocument((doc) => void delete doc.paths["/v1/pets"].get.responses["429"].headers["Retry-After"]) },
    caught: /GET \/v1\/pets: the 429 response does not document the header Retry-After/
  },
  {
    name: "Retry-After in milliseconds",
    variant: { corrupt: rewriteHeader("Retry-After", (v) => String(Number(v) * 1000)) },
    caught: /Retry-After \d+000 |a first ban of \d+000 s/
  },
  {
    name: "X-RateLimit-Reset in milliseconds",
    variant: { corrupt: rewriteHeader("X-RateLimit-Reset", (v) => String(Number(v) * 1000)) },
    caught: /X-RateLimit-Reset \d+ is not within/
  },
  {
    name: "405 answered with the code not_found",
    variant: { corrupt: wrongCode(405, "not_found") },
    caught: /code "not_found"; a 405 carries method_not_allowed/
  },
  {
    name: "malformed JSON answered with invalid_request instead of invalid_json",
    variant: { corrupt: (_req, res) => (errorCodeOf(res) === "invalid_json" ? errorResponse(res, 400, "invalid_request") : res) },
    caught: /malformed_json.*code "invalid_request", expected invalid_json/
  },
  {
    name: "a message's createdAt with an offset instead of Z",
    variant: { corrupt: offsetTimestamps },
    caught: /createdAt "[^"]+\+00:00" is not an RFC 3339 timestamp in UTC/
  }
]
