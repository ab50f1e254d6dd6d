/**
 * The checker holds answers to the document's `required` headers: a header marked required that an
 * answer lacks is a failure, one sent only sometimes is not. Against the project's server, every
 * status an operation answers in process conforms, and a server that drops a required header
 * (on 201, 401 or getPet's 404) is caught.
 */
import { Errors, RateLimiter } from "@petstore/core"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { HttpExchange, OpenApiChecker } from "../src/conformance/index.js"
import { ADMIN_TOKEN, type RunningServer, type ServerVariant, startServer } from "./support/InProcessServer.js"

type Exchange = HttpExchange.HttpExchange

const exchange = (method: string, path: string, status: number, headers: Record<string, string>, text: string): Exchange => ({
  request: { method, path, headers: {} },
  response: { status, headers: { "content-type": "application/json", ...headers }, text },
  sentAt: 0,
  receivedAt: 0,
  wallSentAt: 0
})

describe("OpenApiChecker: required headers", () => {
  const checker = OpenApiChecker.make({
    openapi: "3.0.3",
    info: { title: "t", version: "1" },
    paths: {
      "/things": {
        get: {
          operationId: "listThings",
          responses: {
            "200": {
              description: "ok",
              headers: {
                "X-Always": { $ref: "#/components/headers/X-Always" },
                "X-Sometimes": { schema: { type: "integer" } }
              },
              content: { "application/json": { schema: { type: "array" } } }
            }
          }
        }
      }
    },
    components: { headers: { "X-Always": { required: true, schema: { type: "integer" } } } }
  })

  it("fails an answer without a header marked required, through a $ref to a header component", () => {
    expect(checker.check(exchange("GET", "/things", 200, { "x-sometimes": "1" }, "[]"))).toEqual([
      "GET /things → 200: the required header X-Always is missing"
    ])
  })

  it("passes an answer without a header sent only sometimes, and checks it against its schema when sent", () => {
    expect(checker.check(exchange("GET", "/things", 200, { "x-always": "1" }, "[]"))).toEqual([])
    expect(checker.check(exchange("GET", "/things", 200, { "x-always": "1", "x-sometimes": "2" }, "[]"))).toEqual([])
    expect(checker.check(exchange("GET", "/things", 200, { "x-always": "1", "x-sometimes": "two" }, "[]"))[0])
      .toMatch(/header X-Sometimes: "two" does not match its schema/)
  })
})

/** Answers of the project's server that reach each status of each operation (no 410: the clock is real). */
const corpus = async (server: RunningServer) => {
  const client = HttpExchange.makeClient(server.url)
  const admin = async (body: unknown) => {
    const x = await client.send({
      method: "POST",
      path: "/admin/v1/accounts",
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
      body: JSON.stringify(body)
    })
    return (JSON.parse(x.response.text) as { key: string }).key
  }
  const key = await admin({ plan: "enterprise", limits: { perMinute: 1_000, perDay: 100_000 } })
  const tiny = await admin({ plan: "enterprise", limits: { perMinute: 1, perDay: 100 } })
  const as = (k: string | null) => (k === null ? {} : { Authorization: `Bearer ${k}` })
  const json = { "Content-Type": "application/json" }
  const send = (method: string, path: string, k: string | null = key, body?: string, headers = {}) =>
    client.send({ method, path, headers: { ...as(k), ...(body === undefined ? {} : json), ...headers }, body })
  const created = await send("POST", "/v1/pets", key, JSON.stringify({ name: "Rex", categoryId: 1 }))
  const petId = (JSON.parse(created.response.text) as { id: number }).id
  await send("POST", "/v1/pets", key, JSON.stringify({ name: "Tom", categoryId: 1 }))
  const message = await send("POST", "/v1/messages", key, JSON.stringify({ message: "hi" }))
  const messageId = (JSON.parse(message.response.text) as { id: string }).id
  const tooLarge = JSON.stringify({ name: "x".repeat(70_000), categoryId: 1 })
  const answers = [
    created,
    message,
    await send("GET", "/v1/pets?limit=1"),
    await send("GET", "/v1/pets?limit=0"),
    await send("GET", `/v1/pets/${petId}`),
    await send("GET", "/v1/pets/abc"),
    await send("GET", "/v1/pets/999999"),
    await send("POST", "/v1/pets", key, "{"),
    await send("POST", "/v1/pets", key, tooLarge),
    await send("POST", "/v1/messages", key, "{}", { "Content-Type": "text/plain" }),
    await send("POST", "/v1/messages", key, tooLarge),
    await send("GET", `/v1/messages/${messageId}`),
    await send("GET", "/v1/messages/msg_unknown"),
    await send("GET", "/v1/pets", tiny),
    await send("GET", "/v1/pets", tiny)
  ]
  for (const [method, path] of [["GET", "/v1/pets"], ["POST", "/v1/pets"], ["GET", `/v1/pets/${petId}`], ["GET", "/v1/messages/x"]]) {
    answers.push(await send(method!, path!, null))
  }
  client.close()
  return answers
}

const serve = async (variant: ServerVariant = {}) => {
  const server = await startServer(variant)
  const document = await (await fetch(`${server.url}/v1/openapi.json`)).json()
  return { server, checker: OpenApiChecker.make(document) }
}

describe("OpenApiChecker against the project's server", () => {
  let running: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    running = await serve()
  })
  afterAll(() => running.server.close())

  it("finds every answer, each operation's statuses from 200 to 429, as the document says, required headers included", async () => {
    const answers = await corpus(running.server)
    const seen = new Set(answers.map((x) => `${x.request.method} ${x.request.path.split("?")[0]!.replace(/\/\d+$/, "/{id}")} ${x.response.status}`))
    for (const status of ["201", "413", "400", "401"]) expect([...seen].some((s) => s.endsWith(status)), status).toBe(true)
    expect(seen).toContain("GET /v1/pets 429")
    expect(seen).toContain("GET /v1/pets/{id} 404")
    expect(answers.flatMap((x) => running.checker.check(x))).toEqual([])
  }, 60_000)
})

const without = (name: string, when: (request: { readonly method: string; readonly url: string }, status: number) => boolean): ServerVariant => ({
  corrupt: (request, response) => {
    if (!when(request, response.status)) return response
    const { [name]: _, ...headers } = response.headers
    return { ...response, headers }
  }
})

describe("OpenApiChecker catches a server that drops a header the document marks required", () => {
  it.each([
    { header: "Location", variant: without("Location", (_, status) => status === 201) },
    { header: "X-RateLimit-Limit", variant: without("X-RateLimit-Limit", (_, status) => status === 401) },
    { header: "Sunset", variant: without("Sunset", (request, status) => /\/pets\/\w+$/.test(request.url) && status === 404) }
  ])("$header", async ({ header, variant }) => {
    const { checker, server } = await serve(variant)
    try {
      const problems = (await corpus(server)).flatMap((x) => checker.check(x))
      expect(problems.length).toBeGreaterThan(0)
      for (const problem of problems) expect(problem).toMatch(new RegExp(`the required header ${header} is missing$`))
    } finally {
      await server.close()
    }
  }, 60_000)

  it("but not a 5xx answered before the rate limiter ran, without the rate-limit headers", async () => {
    const down = (real: RateLimiter.RateLimiter["Service"]): RateLimiter.RateLimiter["Service"] => ({
      ...real,
      admit: () => Effect.fail(new Errors.StoreUnavailable({ cause: "injected" }))
    })
    const { checker, server } = await serve({ limiter: down })
    try {
      const client = HttpExchange.makeClient(server.url)
      const created = await client.send({
        method: "POST",
        path: "/admin/v1/accounts",
        headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ plan: "free" })
      })
      const { key } = JSON.parse(created.response.text) as { key: string }
      const x = await client.send({ method: "GET", path: "/v1/pets", headers: { Authorization: `Bearer ${key}` } })
      client.close()
      expect(x.response.status).toBe(503)
      expect(x.response.headers["x-ratelimit-limit"]).toBeUndefined()
      expect(checker.check(x)).toEqual(["GET /v1/pets → 503: a server error (any 5xx fails)"])
    } finally {
      await server.close()
    }
  }, 60_000)
})
