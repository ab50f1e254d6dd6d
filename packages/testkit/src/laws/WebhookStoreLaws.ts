/**
 * Laws every pair of webhook stores (`WebhookEndpointStore`, `WebhookAttemptStore`) obeys.
 *
 * @since 1.0.0
 */
import * as fc from "fast-check"
import { describe, expect } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { WebhookAttempt, WebhookEndpoint } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, instant, numRuns, plain, property, text } from "./internal/support.js"

type Endpoints = WebhookEndpoint.WebhookEndpointStore["Service"]
type Attempts = WebhookAttempt.WebhookAttemptStore["Service"]

const accountId = base62(22).map((s) => `acc_${s}`)
const secret = base62(43).map((s) => `whsec_${s}=`)

const anyEndpoint = (id: fc.Arbitrary<string> = accountId): fc.Arbitrary<WebhookEndpoint.WebhookEndpoint> =>
  fc.record({
    accountId: id,
    url: base62(12).map((s) => `https://${s}.example/hooks?k=${s}`),
    secrets: fc.array(fc.record({ secret, expiresAt: fc.option(instant, { nil: null }) }), { minLength: 1, maxLength: 3 }),
    createdAt: instant,
    updatedAt: instant,
    failingSince: fc.option(instant, { nil: null }),
    disabledAt: fc.option(instant, { nil: null }),
    disabledReason: fc.option(text({ maxLength: 100 }), { nil: null })
  })

const NOW = 1_800_000_000_000

/** What the laws of this suite share: its parameters and the helpers over its layer. */
const suiteOf = <E>(
  name: string,
  layer: Layer.Layer<WebhookEndpoint.WebhookEndpointStore | WebhookAttempt.WebhookAttemptStore, E>,
  options?: LawSuiteOptions
) => {
  const withStores = <A, E2>(f: (endpoints: Endpoints, attempts: Attempts) => Effect.Effect<A, E2>) =>
    Effect.provide(
      Effect.flatMap(
        Effect.all([WebhookEndpoint.WebhookEndpointStore, WebhookAttempt.WebhookAttemptStore]),
        ([endpoints, attempts]) => f(endpoints, attempts)
      ),
      layer
    )
  const runs = numRuns(options)
  return { name, layer, options, withStores, runs }
}

type Suite<E> = ReturnType<typeof suiteOf<E>>

/** Endpoints: put, find, page through and remove. */
const endpointLaws = <E>({ withStores, runs }: Suite<E>): void => {
  property("put then find returns exactly the endpoint; a second put replaces it; an unknown account is None", [
    anyEndpoint(),
    anyEndpoint(),
    accountId
  ], ([first, second, unknown]) =>
    withStores((endpoints) =>
      Effect.gen(function*() {
        yield* endpoints.put(first)
        expect(Option.map(yield* endpoints.find(first.accountId), plain)).toStrictEqual(Option.some(first))
        const replacement = { ...second, accountId: first.accountId }
        yield* endpoints.put(replacement)
        expect(Option.map(yield* endpoints.find(first.accountId), plain)).toStrictEqual(Option.some(replacement))
        if (unknown !== first.accountId) expect(Option.isNone(yield* endpoints.find(unknown))).toBe(true)
      })
    ), runs)

  property(
    "paging on from the last account id visits every endpoint exactly once, at most `limit` a page",
    [fc.uniqueArray(anyEndpoint(), { selector: (e) => e.accountId, maxLength: 12 }), fc.integer({ min: 1, max: 5 })],
    ([all, limit]) =>
      withStores((endpoints) =>
        Effect.gen(function*() {
          for (const e of all) yield* endpoints.put(e)
          const seen: Array<string> = []
          let after: string | null = null
          while (true) {
            const page: ReadonlyArray<WebhookEndpoint.WebhookEndpoint> = yield* endpoints.page(after, limit)
            expect(page.length).toBeLessThanOrEqual(limit)
            if (page.length === 0) break
            seen.push(...page.map((e) => e.accountId))
            after = page.at(-1)!.accountId
          }
          expect(new Set(seen).size).toBe(seen.length)
          for (const e of all) expect(seen).toContain(e.accountId)
        })
      ),
    runs
  )

  property("remove answers whether there was an endpoint, and it is gone after", [anyEndpoint()], ([e]) =>
    withStores((endpoints) =>
      Effect.gen(function*() {
        yield* endpoints.put(e)
        expect(yield* endpoints.remove(e.accountId)).toBe(true)
        expect(Option.isNone(yield* endpoints.find(e.accountId))).toBe(true)
        expect(yield* endpoints.remove(e.accountId)).toBe(false)
      })
    ), runs)
}

/** Delivery outcomes: the failure streak, and an account without an endpoint. */
const outcomeLaws = <E>({ withStores, runs }: Suite<E>): void => {
  property(
    "outcomes follow the streak rule: a failure starts the streak, a success ends it, a streak as long as the period disables the endpoint once",
    [
      anyEndpoint().map((e) => ({ ...e, failingSince: null, disabledAt: null, disabledReason: null })),
      fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 10_000 })), { maxLength: 12 }),
      fc.integer({ min: 0, max: 30_000 })
    ],
    ([start, outcomes, disableAfter]) =>
      withStores((endpoints) =>
        Effect.gen(function*() {
          yield* endpoints.put(start)
          let model: WebhookEndpoint.WebhookEndpoint = start
          let now = NOW
          for (const [ok, step] of outcomes) {
            now += step
            if (ok) {
              yield* endpoints.recordSuccess(start.accountId)
              model = model.failingSince === null ? model : { ...model, failingSince: null }
            } else {
              const [next, change] = WebhookEndpoint.afterFailure(model, now, disableAfter, `failed at ${now}`)
              expect(yield* endpoints.recordFailure(start.accountId, now, disableAfter, `failed at ${now}`)).toBe(change)
              model = next
            }
            const stored = Option.getOrThrow(yield* endpoints.find(start.accountId))
            expect([stored.failingSince, stored.disabledAt, stored.disabledReason]).toStrictEqual([
              model.failingSince,
              model.disabledAt,
              model.disabledReason
            ])
          }
        })
      ),
    runs
  )

  property(
    "recordFailure for an account without an endpoint changes nothing",
    [accountId],
    ([id]) =>
      withStores((endpoints) =>
        Effect.gen(function*() {
          expect(yield* endpoints.recordFailure(id, NOW, 0, "x")).toBe("failing")
          expect(Option.isNone(yield* endpoints.find(id))).toBe(true)
        })
      ),
    runs
  )
}

/** The attempt log. */
const attemptLogLaws = <E>({ withStores, runs }: Suite<E>): void => {
  property(
    "the attempt log lists a message's attempts in the order recorded; messagesSince gives each message of the account with an attempt at or after the instant, once",
    [
      fc.array(
        fc.record({
          message: fc.integer({ min: 0, max: 3 }),
          account: fc.integer({ min: 0, max: 1 }),
          at: fc.integer({ min: 0, max: 100 }),
          statusCode: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
          error: fc.option(text({ maxLength: 80 }), { nil: null }),
          durationMillis: fc.integer({ min: 0, max: 60_000 })
        }),
        { maxLength: 15 }
      ),
      base62(8),
      fc.integer({ min: 0, max: 100 })
    ],
    ([specs, salt, since]) =>
      withStores((_, attempts) =>
        Effect.gen(function*() {
          // Each message belongs to one account, as messages do.
          const recorded = specs.map((s, i): WebhookAttempt.WebhookAttempt => ({
            messageId: `msg_${salt}_${s.message}`,
            accountId: `acc_${salt}_${s.message % 2}`,
            attempt: i + 1,
            url: "https://receiver.example/",
            startedAt: NOW + s.at,
            durationMillis: s.durationMillis,
            statusCode: s.statusCode,
            error: s.error
          }))
          for (const a of recorded) yield* attempts.record(a)
          for (let message = 0; message < 4; message++) {
            const id = `msg_${salt}_${message}`
            expect((yield* attempts.list(id)).map(plain)).toStrictEqual(recorded.filter((a) => a.messageId === id))
          }
          for (let account = 0; account < 2; account++) {
            const acc = `acc_${salt}_${account}`
            const expected = new Set(recorded.filter((a) => a.accountId === acc && a.startedAt >= NOW + since).map((a) => a.messageId))
            const got = yield* attempts.messagesSince(acc, NOW + since)
            expect(got.length).toBe(expected.size)
            expect(new Set(got)).toStrictEqual(expected)
          }
        })
      ),
    runs
  )
}

/**
 * Registers the laws of the webhook stores for the implementation `layer` provides.
 *
 * @category law suites
 * @since 1.0.0
 */
export const webhookStoreLaws = <E>(
  name: string,
  layer: Layer.Layer<WebhookEndpoint.WebhookEndpointStore | WebhookAttempt.WebhookAttemptStore, E>,
  options?: LawSuiteOptions
): void => {
  const suite = suiteOf(name, layer, options)
  describe(`Webhook store laws: ${name}`, () => {
    endpointLaws(suite)
    outcomeLaws(suite)
    attemptLogLaws(suite)
  })
}
