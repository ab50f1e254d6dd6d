/**
 * The typed client against a real server (node:http on an ephemeral port, in-memory stores) and,
 * for the retry policy's edges, against a scripted `HttpClient`. The server and the client share
 * the test's `TestClock`: waiting for `Retry-After` costs no real time, and what the client waited
 * is read from the clock, not measured.
 */
import { TestClock } from "effect/testing"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpClientResponse } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { describe, expect, it } from "@effect/vitest"
import { BanPolicy, MessageProcessor, Pet, Petstore } from "@petstore/core"
import { Clock, Context, Duration, Effect, Fiber, Layer, Option, Redacted, type Scope } from "effect"
import { AdminApi, type CreateAccount } from "../src/AdminApi.js"
import { App } from "../src/App.js"
import * as Client from "../src/Client.js"
import * as Server from "../src/Server.js"

const ADMIN_TOKEN = "client-test-admin-token-0123456789"
const HOUR = 3_600_000

/** A real server whose services read the test's clock. A ban needs more than one early request. */
const startServer: Effect.Effect<string, unknown, Scope.Scope> = Effect.gen(function*() {
  const context = yield* Layer.build(
    Server.layer({ port: 0, host: "127.0.0.1" }).pipe(
      Layer.provide(App.layer({ quickstartBasePath: "/v1", adminToken: Option.some(Redacted.make(ADMIN_TOKEN)), trustProxy: 0, servers: [] })),
      Layer.provide(Petstore.layerMemory({
        rateLimiter: { ban: { ...BanPolicy.DEFAULT_OPTIONS, threshold: 1 } },
        // The idle worker's wake-ups stay far beyond anything a client waits for.
        messageQueue: { pollMillis: 24 * HOUR }
      })),
      Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
    )
  )
  return Context.get(context, Server.ServerAddress).url
})

const createAccount = (url: string, payload: typeof CreateAccount.Type) =>
  Effect.gen(function*() {
    const admin = yield* HttpApiClient.make(AdminApi, {
      baseUrl: url,
      transformClient: HttpClient.mapRequest(HttpClientRequest.bearerToken(ADMIN_TOKEN))
    })
    return yield* admin.admin.createAccount({ payload })
  }).pipe(Effect.provide(FetchHttpClient.layer))

interface Attempt {
  readonly at: number
  readonly status: number
  readonly retryAfter: string | undefined
}

/** The HTTP client under the typed client's retries, recording every answer with the clock's time. */
const recordingHttpClient = (attempts: Array<Attempt>) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.tap(client, (response) =>
        Effect.map(Clock.currentTimeMillis, (at) => {
          attempts.push({ at, status: response.status, retryAfter: response.headers["retry-after"] })
        })))
  ).pipe(Layer.provide(FetchHttpClient.layer))

/**
 * The test clock, with the wake-up times of the sleeps in progress kept (Effect 4's `TestClock` does
 * not list them): what `withClockDriven` moves the clock to.
 */
const trackingClock = (base: Clock.Clock, wakeups: Array<number>): Clock.Clock => ({
  currentTimeMillisUnsafe: () => base.currentTimeMillisUnsafe(),
  currentTimeMillis: base.currentTimeMillis,
  currentTimeNanosUnsafe: () => base.currentTimeNanosUnsafe(),
  currentTimeNanos: base.currentTimeNanos,
  monotonicTimeNanosUnsafe: () => base.monotonicTimeNanosUnsafe(),
  monotonicTimeNanos: base.monotonicTimeNanos,
  sleep: (duration) => {
    const at = base.currentTimeMillisUnsafe() + Duration.toMillis(duration)
    return Effect.suspend(() => {
      wakeups.push(at)
      return Effect.ensuring(base.sleep(duration), Effect.sync(() => void wakeups.splice(wakeups.indexOf(at), 1)))
    })
  }
})

/**
 * Runs `effect`, moving the test clock to each wake-up within `horizon` as soon as one is
 * pending, and waiting for real I/O otherwise.
 */
const withClockDriven = <A, E>(effect: Effect.Effect<A, E>, horizon = HOUR) =>
  Effect.gen(function*() {
    const wakeups: Array<number> = []
    const clock = trackingClock(yield* Clock.Clock, wakeups)
    const fiber = yield* Effect.forkChild(Effect.provideService(effect, Clock.Clock, clock))
    while (fiber.pollUnsafe() === undefined) {
      const now = yield* Clock.currentTimeMillis
      const due = wakeups.filter((at) => at - now <= horizon)
      if (due.length > 0) yield* TestClock.setTime(Math.min(...due))
      else yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
    }
    return yield* Fiber.join(fiber)
  })

describe("Client against a real server", () => {
  it.effect("lists, creates and gets animals with the interface's types", () =>
    Effect.gen(function*() {
      const url = yield* startServer
      const { key } = yield* createAccount(url, { plan: "free" })
      const client = yield* Client.make({ baseUrl: url, apiKey: Redacted.make(key) }).pipe(Effect.provide(FetchHttpClient.layer))

      const rex = yield* client.animals.createPet({ headers: {}, payload: { name: "Rex", categoryId: Pet.CategoryId.make(3) } })
      expect(rex).toEqual({ id: rex.id, name: "Rex", categoryId: 3, status: "available" })
      expect(Number.isSafeInteger(rex.id) && rex.id > 0).toBe(true)
      const tom = yield* client.animals.createPet({ headers: {}, payload: { name: "Tom", categoryId: Pet.CategoryId.make(4), status: "sold" } })

      expect(yield* client.animals.getPet({ params: { petId: rex.id } })).toEqual(rex)
      expect(yield* client.animals.listPets({ query: {} })).toEqual([rex, tom])
      expect(yield* client.animals.listPets({ query: { status: "sold" } })).toEqual([tom])
      const [page, response] = yield* client.animals.listPets({ query: { limit: 1 }, responseMode: "decoded-and-response" })
      expect(page).toEqual([rex])
      expect(response.headers["link"]).toMatch(/rel="next"/)
    }))

  it.effect("errors decode to the Error body with its status", () =>
    Effect.gen(function*() {
      const url = yield* startServer
      const { key } = yield* createAccount(url, { plan: "free" })
      const make = (apiKey: string) =>
        Client.make({ baseUrl: url, apiKey: Redacted.make(apiKey) }).pipe(Effect.provide(FetchHttpClient.layer))

      const missing = yield* Effect.flip((yield* make(key)).animals.getPet({ params: { petId: Pet.PetId.make(424242) } }))
      expect(missing).toEqual({ code: "not_found", status: 404, message: expect.stringContaining("424242") })

      const refused = yield* Effect.flip((yield* make("psk_live_notAKeyAtAll0000000000000")).animals.listPets({ query: {} }))
      expect(refused).toEqual({ code: "unauthorized", status: 401, message: expect.any(String) })
    }))

  it.effect("after a 429 it waits at least Retry-After and then succeeds, call after call, and is never banned", () =>
    Effect.gen(function*() {
      const url = yield* startServer
      const { key } = yield* createAccount(url, { plan: "enterprise", limits: { perMinute: 1, perDay: 1000 } })
      const attempts: Array<Attempt> = []
      const client = yield* Client.make({ baseUrl: url, apiKey: Redacted.make(key), retry: { maxAttempts: 3 } }).pipe(
        Effect.provide(recordingHttpClient(attempts))
      )

      const calls = 6
      const pages = yield* withClockDriven(
        Effect.forEach(Array.from({ length: calls }), () => client.animals.listPets({ query: {} }))
      )
      expect(pages).toEqual(Array.from({ length: calls }, () => []))

      // One token a minute: every call after the first is told to wait once, waits, and gets in.
      expect(attempts.map((a) => a.status)).toEqual([200, ...Array.from({ length: calls - 1 }, () => [429, 200]).flat()])
      attempts.forEach((attempt, i) => {
        if (attempt.status !== 429) return
        expect(attempt.retryAfter).toMatch(/^[1-9]\d*$/)
        expect(attempts[i + 1]!.at - attempt.at).toBeGreaterThanOrEqual(Number(attempt.retryAfter) * 1000)
      })
    }))
})

/** An HTTP client that answers from a script, one answer per request, recording the clock's time. */
const scripted = (answers: ReadonlyArray<{ status: number; headers?: Record<string, string>; body?: unknown }>) => {
  const times: Array<number> = []
  const layer = Layer.succeed(
    HttpClient.HttpClient,
    HttpClient.make((request) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const answer = answers[Math.min(times.length, answers.length - 1)]!
        times.push(now)
        return HttpClientResponse.fromWeb(
          request,
          new Response(JSON.stringify(answer.body ?? []), {
            status: answer.status,
            headers: { "content-type": "application/json", ...answer.headers }
          })
        )
      })
    )
  )
  return { times, layer }
}

const errorBody = (status: number, code: string) => ({ code, message: code, status })

describe("Client retry policy", () => {
  it.effect("without Retry-After: exponential backoff with full jitter, maxAttempts requests, then the last answer", () =>
    Effect.gen(function*() {
      const server = scripted([{ status: 503, body: errorBody(503, "unavailable") }])
      const policy = { maxAttempts: 5, baseDelay: "1 second", maxDelay: "3 seconds" } as const
      const client = yield* Client.make({ baseUrl: "http://stub", apiKey: Redacted.make("k"), retry: policy }).pipe(
        Effect.provide(server.layer)
      )
      const error = yield* withClockDriven(Effect.flip(client.animals.listPets({ query: {} })))
      expect(error).toEqual(errorBody(503, "unavailable"))
      expect(server.times).toHaveLength(5)
      const ceilings = [1000, 2000, 3000, 3000]
      ceilings.forEach((ceiling, i) => {
        const gap = server.times[i + 1]! - server.times[i]!
        expect(gap).toBeGreaterThanOrEqual(0)
        expect(gap).toBeLessThanOrEqual(ceiling)
      })
    }))

  it.effect("an HTTP-date Retry-After is waited for; a 200 ends the retries", () =>
    Effect.gen(function*() {
      const server = scripted([
        { status: 429, headers: { "retry-after": new Date(7_000).toUTCString() }, body: errorBody(429, "rate_limited") },
        { status: 200, body: [] }
      ])
      const client = yield* Client.make({ baseUrl: "http://stub", apiKey: Redacted.make("k") }).pipe(Effect.provide(server.layer))
      expect(yield* withClockDriven(client.animals.listPets({ query: {} }))).toEqual([])
      expect(server.times).toEqual([0, 7_000])
    }))

  it.effect("a Retry-After longer than maxRetryAfter (a ban) is reported at once, not slept through", () =>
    Effect.gen(function*() {
      const server = scripted([{ status: 429, headers: { "retry-after": "900" }, body: errorBody(429, "key_banned") }])
      const client = yield* Client.make({ baseUrl: "http://stub", apiKey: Redacted.make("k"), retry: { maxRetryAfter: "5 minutes" } })
        .pipe(Effect.provide(server.layer))
      const error = yield* withClockDriven(Effect.flip(client.animals.listPets({ query: {} })), Infinity)
      expect(error).toEqual(errorBody(429, "key_banned"))
      expect(server.times).toEqual([0])
    }))

  it.effect("withRetries hands back the last answer with its body unread, for any consumer", () =>
    Effect.gen(function*() {
      const server = scripted([{ status: 503, headers: { "retry-after": "1" }, body: errorBody(503, "unavailable") }])
      const client = yield* Effect.map(HttpClient.HttpClient, Client.withRetries({ ...Client.DEFAULT_RETRY_POLICY, maxAttempts: 2 }))
        .pipe(Effect.provide(server.layer))
      const response = yield* withClockDriven(client.get("http://stub/anything"))
      expect(response.status).toBe(503)
      expect(yield* response.json).toEqual(errorBody(503, "unavailable"))
      expect(server.times).toEqual([0, 1_000])
    }))

  it.effect("the key goes out as a bearer token", () =>
    Effect.gen(function*() {
      const seen: Array<string | undefined> = []
      const client = yield* Client.make({ baseUrl: "http://stub", apiKey: Redacted.make("psk_test_abc") }).pipe(
        Effect.provide(Layer.succeed(
          HttpClient.HttpClient,
          HttpClient.make((request) =>
            Effect.sync(() => {
              seen.push(request.headers["authorization"])
              return HttpClientResponse.fromWeb(request, new Response("[]", { headers: { "content-type": "application/json" } }))
            })
          )
        ))
      )
      yield* client.animals.listPets({ query: {} })
      expect(seen).toEqual(["Bearer psk_test_abc"])
    }))
})
