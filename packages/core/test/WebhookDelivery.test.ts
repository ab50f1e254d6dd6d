import { describe, expect, it } from "@effect/vitest"
import { type Duration, Effect, Layer, Option } from "effect"
import { Webhook } from "standardwebhooks"
import { MessageQueue } from "../src/MessageQueue.js"
import { MessageStore } from "../src/MessageStore.js"
import { SecureRandom } from "../src/SecureRandom.js"
import { WebhookAttemptStore } from "../src/WebhookAttempt.js"
import { makeMemory as makeAttemptsMemory } from "../src/WebhookAttempt.js"
import * as WebhookDelivery from "../src/WebhookDelivery.js"
import { type WebhookEndpoint, WebhookEndpointStore } from "../src/WebhookEndpoint.js"
import { secretFromBytes } from "../src/WebhookSignature.js"

const SECRET = secretFromBytes(new Uint8Array(32).fill(3))
const OLD_SECRET = secretFromBytes(new Uint8Array(32).fill(4))

const endpoint = (accountId: string, patch: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  accountId,
  url: "https://receiver.example/hooks",
  secrets: [{ secret: SECRET, expiresAt: null }],
  createdAt: 0,
  updatedAt: 0,
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  ...patch
})

/** A sender that answers from `answer` and keeps every request it was given. */
const recordingSender = (
  sent: Array<WebhookDelivery.DeliveryRequest>,
  answer: (request: WebhookDelivery.DeliveryRequest, n: number) => Effect.Effect<WebhookDelivery.DeliveryOutcome>
) =>
  Layer.succeed(WebhookDelivery.WebhookSender, {
    send: (request) => Effect.suspend(() => answer(request, sent.push(request)))
  })

const answered = (status: number): Effect.Effect<WebhookDelivery.DeliveryOutcome> => Effect.succeed({ _tag: "Answered", status })

const setup = (
  sender: Layer.Layer<WebhookDelivery.WebhookSender>,
  options: {
    delays?: ReadonlyArray<number>
    delivery?: Partial<WebhookDelivery.WebhookDeliveryOptions>
    concurrency?: number
    leaseMillis?: number
  } = {}
) =>
  MessageQueue.layer({
    retryDelaysMillis: options.delays ?? [10, 10],
    concurrency: options.concurrency ?? 2,
    pollMillis: 20,
    ...(options.leaseMillis === undefined ? {} : { leaseMillis: options.leaseMillis })
  }).pipe(
    Layer.provide(WebhookDelivery.layer(options.delivery)),
    Layer.provideMerge(Layer.mergeAll(MessageStore.layerMemory, WebhookEndpointStore.layerMemory, WebhookAttemptStore.layerMemory)),
    Layer.provide(sender),
    Layer.provide(SecureRandom.seeded(9))
  )

/** Answers 200 after `delay`, counting the most answers in progress at once. */
const slowAnswers = (delay: Duration.Input) => {
  let inFlight = 0
  let most = 0
  const slowly = Effect.acquireUseRelease(
    Effect.sync(() => {
      inFlight++
      most = Math.max(most, inFlight)
    }),
    () => Effect.sleep(delay).pipe(Effect.andThen(answered(200))),
    () => Effect.sync(() => void inFlight--)
  )
  return { slowly, most: () => most }
}

/** Waits (real time, at least `seconds`, 5 by default) until the message reaches a final status. */
const settled = (id: string, seconds = 5) =>
  Effect.gen(function*() {
    const store = yield* MessageStore
    for (let i = 0; i < seconds * 100; i++) {
      const m = Option.getOrThrow(yield* store.find(id))
      if (m.status === "delivered" || m.status === "failed") return m
      yield* Effect.sleep("10 millis")
    }
    throw new Error(`message not settled within ${seconds} s`)
  })

describe("WebhookDelivery", () => {
  it.live("an account without an endpoint: delivered as before, nothing sent, no attempt logged", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      const queue = yield* MessageQueue
      const m = yield* queue.submit("acc_1", "hello")
      expect((yield* settled(m.id)).status).toBe("delivered")
      expect(sent).toEqual([])
      expect(yield* (yield* WebhookAttemptStore).list(m.id)).toEqual([])
    }).pipe(Effect.provide(setup(recordingSender(sent, () => answered(200)))))
  })

  it.live("a 2xx delivers: one signed POST of the event that standardwebhooks verifies, with the message id as webhook-id", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "hello ✓")
      expect((yield* settled(m.id)).status).toBe("delivered")
      expect(sent).toHaveLength(1)
      const request = sent[0]!
      expect(request.url).toBe("https://receiver.example/hooks")
      expect(request.headers["webhook-id"]).toBe(m.id)
      expect(request.headers["content-type"]).toBe("application/json")
      const event = new Webhook(SECRET).verify(request.body, request.headers)
      expect(event).toEqual({
        type: "message.submitted",
        timestamp: m.createdAt,
        data: { id: m.id, message: "hello ✓", createdAt: m.createdAt }
      })
      const attempts = yield* (yield* WebhookAttemptStore).list(m.id)
      expect(attempts).toMatchObject([{ messageId: m.id, accountId: "acc_1", attempt: 1, statusCode: 201, error: null }])
    }).pipe(Effect.provide(setup(recordingSender(sent, (_, n) => answered(200 + n)))))
  })

  it.live("anything but 2xx is retried on the schedule with the same webhook-id and body; each attempt is logged", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    const answers = [500, 302, 429]
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "again")
      expect((yield* settled(m.id)).status).toBe("delivered")
      expect(sent.map((r) => r.headers["webhook-id"])).toEqual([m.id, m.id, m.id, m.id])
      expect(new Set(sent.map((r) => r.body)).size).toBe(1)
      const attempts = yield* (yield* WebhookAttemptStore).list(m.id)
      expect(attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual([
        [1, 500, "answered 500"],
        [2, 302, "answered 302"],
        [3, 429, "answered 429"],
        [4, 204, null]
      ])
    }).pipe(Effect.provide(setup(recordingSender(sent, (_, n) => answered(answers[n - 1] ?? 204)), { delays: [5, 5, 5] })))
  })

  it.live("when the schedule is spent the message is failed with the last error; no answer at all is a failure too", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    // A sender keeping the deadline it is given, as the server's does: no answer by then.
    const silent = (request: WebhookDelivery.DeliveryRequest) =>
      Effect.as(Effect.sleep(request.timeoutMillis), WebhookDelivery.noAnswerWithin(request.timeoutMillis))
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "doomed")
      const final = yield* settled(m.id)
      expect(final.status).toBe("failed")
      expect(final.lastError).toBe("no answer within 30 ms")
      expect(sent.map((r) => r.timeoutMillis)).toEqual([30, 30, 30])
      const attempts = yield* (yield* WebhookAttemptStore).list(m.id)
      expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([[1, null], [2, null], [3, null]])
      expect(attempts.every((a) => a.durationMillis >= 25)).toBe(true)
    }).pipe(Effect.provide(setup(recordingSender(sent, silent), { delivery: { attemptTimeoutMillis: 30 } })))
  })

  it.live("a sender that ignores its deadline is cut at the queue's lease: retried, then failed, no worker lost", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    // The watch cuts an attempt a tenth of its lease before the lease ends; it relies on that margin to
    // record the outcome before another worker may claim the message. An 80 ms lease left 8 ms, which a
    // loaded machine overran (a timer or the process late by more): the lease ran out under the hung
    // attempt, the other worker claimed it, and a 4th POST went out. A 2 s lease leaves 200 ms, over
    // twice the longest stall seen under load (93 ms), and the test ~6 s; exactly 3 attempts still holds.
    const LEASE = 2_000
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "hangs")
      const final = yield* settled(m.id, 20)
      expect(final.status).toBe("failed")
      expect(final.lastError).toBe("processing took longer than the lease")
      expect(sent).toHaveLength(3)
    }).pipe(Effect.provide(setup(recordingSender(sent, () => Effect.never), { delivery: { attemptTimeoutMillis: 30 }, leaseMillis: LEASE })))
  })

  it.live("during a rotation every live secret signs, an expired one no longer does", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    const EXPIRED = secretFromBytes(new Uint8Array(32).fill(5))
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1", {
        secrets: [
          { secret: SECRET, expiresAt: null },
          { secret: OLD_SECRET, expiresAt: Date.now() + 3_600_000 },
          { secret: EXPIRED, expiresAt: Date.now() - 1 }
        ]
      }))
      const m = yield* (yield* MessageQueue).submit("acc_1", "rotating")
      yield* settled(m.id)
      const headers = sent[0]!.headers
      expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2)
      expect(new Webhook(SECRET).verify(sent[0]!.body, headers)).toBeTruthy()
      expect(new Webhook(OLD_SECRET).verify(sent[0]!.body, headers)).toBeTruthy()
      expect(() => new Webhook(EXPIRED).verify(sent[0]!.body, headers)).toThrow()
    }).pipe(Effect.provide(setup(recordingSender(sent, () => answered(200)))))
  })

  it.live("an unreadable secret or a crash is a failed attempt with its full reason; the message shows a stable one", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointStore
      yield* endpoints.put(endpoint("acc_sealed", { secrets: [{ secret: "sealed:v1:x", expiresAt: null, unreadable: "does not open with PETSTORE_WEBHOOK_SECRET_KEY" }] }))
      yield* endpoints.put(endpoint("acc_crash"))
      const queue = yield* MessageQueue
      const sealed = yield* queue.submit("acc_sealed", "unsigned")
      const crash = yield* queue.submit("acc_crash", "boom")
      const attempts = yield* WebhookAttemptStore
      expect(yield* settled(sealed.id)).toMatchObject({ status: "failed", lastError: "delivery could not be signed" })
      expect(yield* attempts.list(sealed.id)).toMatchObject([
        { attempt: 1, error: expect.stringMatching(/PETSTORE_WEBHOOK_SECRET_KEY/) },
        { attempt: 2, error: expect.stringMatching(/PETSTORE_WEBHOOK_SECRET_KEY/) }
      ])
      expect(yield* settled(crash.id)).toMatchObject({ status: "failed", lastError: "delivery failed: internal error" })
      expect(yield* attempts.list(crash.id)).toMatchObject([
        { attempt: 1, error: "processor crashed: Error: sender exploded" },
        { attempt: 2, error: "processor crashed: Error: sender exploded" }
      ])
      expect(sent.filter((r) => r.headers["webhook-id"] === sealed.id)).toEqual([])
    }).pipe(Effect.provide(setup(recordingSender(sent, () => Effect.die(new Error("sender exploded"))), { delays: [1] })))
  })

  it("what the account sees of an outcome: short and stable", () => {
    const { outcome } = WebhookDelivery.publicReason
    expect(outcome({ _tag: "Answered", status: 503 }, 8000)).toBe("endpoint answered 503")
    expect(outcome(WebhookDelivery.noAnswerWithin(8000), 8000)).toBe("no answer within 8000 ms")
    expect(outcome({ _tag: "NoAnswer", kind: "timeout", error: "UND_ERR_HEADERS_TIMEOUT: Headers Timeout Error" }, 8000)).toBe("no answer within 8000 ms")
    expect(outcome({ _tag: "NoAnswer", kind: "refused", error: "refused: h resolves to no public address" }, 8000)).toBe("endpoint address refused")
    expect(outcome({ _tag: "NoAnswer", kind: "unreachable", error: "ECONNREFUSED: connect 10.0.0.1" }, 8000)).toBe("endpoint unreachable")
  })

  it.live("a disabled endpoint fails messages at once, sending nothing (kept for replay)", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1", { disabledAt: 1, disabledReason: "failing" }))
      const m = yield* (yield* MessageQueue).submit("acc_1", "held")
      const final = yield* settled(m.id)
      expect(final.status).toBe("failed")
      expect(final.lastError).toBe("endpoint disabled")
      expect(sent).toEqual([])
      const attempts = yield* (yield* WebhookAttemptStore).list(m.id)
      expect(attempts).toMatchObject([{ attempt: 1, statusCode: null, durationMillis: 0, error: expect.stringMatching(/disabled: set it again, then replay/) }])
    }).pipe(Effect.provide(setup(recordingSender(sent, () => answered(200)))))
  })

  it.live("an endpoint failing without a break for the configured period is disabled, visibly, and the message failed", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointStore
      yield* endpoints.put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "streak")
      expect((yield* settled(m.id)).status).toBe("failed")
      // Failing since the first attempt; disabled at the first failure 40 ms or more after it.
      expect(sent.length).toBeGreaterThanOrEqual(2)
      const e = Option.getOrThrow(yield* endpoints.find("acc_1"))
      expect(e.disabledAt).not.toBeNull()
      expect(e.disabledAt! - e.failingSince!).toBeGreaterThanOrEqual(40)
      expect(e.disabledReason).toMatch(/answered 503/)
    }).pipe(Effect.provide(setup(recordingSender(sent, () => answered(503)), {
      delays: Array(50).fill(20),
      delivery: { disableAfterMillis: 40 }
    })))
  })

  it.live("410 Gone disables the endpoint at once", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointStore
      yield* endpoints.put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "gone")
      expect((yield* settled(m.id)).status).toBe("failed")
      expect(sent).toHaveLength(1)
      expect(Option.getOrThrow(yield* endpoints.find("acc_1")).disabledAt).not.toBeNull()
    }).pipe(Effect.provide(setup(recordingSender(sent, () => answered(410)))))
  })

  it.live("a success ends the failing streak", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    return Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointStore
      yield* endpoints.put(endpoint("acc_1"))
      const m = yield* (yield* MessageQueue).submit("acc_1", "streak")
      yield* settled(m.id)
      expect(Option.getOrThrow(yield* endpoints.find("acc_1")).failingSince).toBeNull()
    }).pipe(Effect.provide(setup(recordingSender(sent, (_, n) => answered(n === 1 ? 500 : 200)))))
  })

  it.live("no more than maxInFlightPerEndpoint POSTs to one endpoint at once from one process", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    const { most, slowly } = slowAnswers("30 millis")
    return Effect.gen(function*() {
      const endpoints = yield* WebhookEndpointStore
      yield* endpoints.put(endpoint("acc_slow"))
      const queue = yield* MessageQueue
      const slow = yield* Effect.forEach(Array.from({ length: 8 }), () => queue.submit("acc_slow", "slow"))
      for (const m of slow) expect((yield* settled(m.id)).status).toBe("delivered")
      expect(most()).toBe(2)
    }).pipe(Effect.provide(setup(recordingSender(sent, () => slowly), { concurrency: 4, delivery: { maxInFlightPerEndpoint: 2 } })))
  })
})

describe("WebhookDelivery: waiting for an endpoint's permit", () => {
  it.live("the permit is given back once the answer is in: the next POST to the endpoint does not wait for the attempt's row", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    // The attempt store of a slow database: the first row written waits (at most 2 s) for a second POST to be sent.
    const sentWhenFirstRowWritten: Array<number> = []
    let first = true
    const memory = makeAttemptsMemory()
    const slowAttempts = Layer.succeed(WebhookAttemptStore, {
      ...memory,
      record: (attempt) =>
        Effect.gen(function*() {
          if (first) {
            first = false
            for (let i = 0; i < 200 && sent.length < 2; i++) yield* Effect.sleep("10 millis")
            sentWhenFirstRowWritten.push(sent.length)
          }
          return yield* memory.record(attempt)
        })
    })
    const layer = MessageQueue.layer({ retryDelaysMillis: [10], concurrency: 2, pollMillis: 20 }).pipe(
      Layer.provide(WebhookDelivery.layer({ maxInFlightPerEndpoint: 1, attemptTimeoutMillis: 5_000 })),
      Layer.provideMerge(Layer.mergeAll(MessageStore.layerMemory, WebhookEndpointStore.layerMemory, slowAttempts)),
      Layer.provide(recordingSender(sent, () => answered(200))),
      Layer.provide(SecureRandom.seeded(9))
    )
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const queue = yield* MessageQueue
      const ms = yield* Effect.forEach(["a", "b"], (text) => queue.submit("acc_1", text))
      for (const m of ms) expect((yield* settled(m.id)).status).toBe("delivered")
      expect(sentWhenFirstRowWritten).toEqual([2])
    }).pipe(Effect.provide(layer))
  })


  it.live("a wait longer than the attempt's deadline is a failed attempt, logged and retried, never a claim held past its lease", () => {
    const sent: Array<WebhookDelivery.DeliveryRequest> = []
    const { most, slowly } = slowAnswers("40 millis")
    return Effect.gen(function*() {
      yield* (yield* WebhookEndpointStore).put(endpoint("acc_1"))
      const queue = yield* MessageQueue
      const ms = yield* Effect.forEach(Array.from({ length: 6 }), (_, i) => queue.submit("acc_1", `m${i}`))
      for (const m of ms) expect((yield* settled(m.id)).status).toBe("delivered")
      expect(most()).toBe(1)
      const log = yield* Effect.forEach(ms, (m) => Effect.flatMap(WebhookAttemptStore, (s) => s.list(m.id)))
      const busy = log.flat().filter((a) => a.error !== null)
      expect(busy.length).toBeGreaterThan(0)
      for (const a of busy) expect(a).toMatchObject({ statusCode: null, durationMillis: 0, error: "not sent: 1 deliveries to the endpoint stayed in flight for 50 ms" })
    }).pipe(Effect.provide(setup(recordingSender(sent, () => slowly), {
      concurrency: 6,
      delays: Array(20).fill(20),
      delivery: { maxInFlightPerEndpoint: 1, attemptTimeoutMillis: 50 }
    })))
  })
})
