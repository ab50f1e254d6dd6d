import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { MessageQueue, MessageStore, WebhookAttempt, WebhookEndpoint } from "@petstore/core"
import { Database, MessageStorePg, PostgresPetstore, WebhookStoresPg } from "@petstore/postgres"
import * as TestDatabase from "./support/TestDatabase.js"

const database = await TestDatabase.make()

const NOW = 1_800_000_000_000
const LEASE = 60_000
const WORKERS = 40

const endpoint: WebhookEndpoint.WebhookEndpoint = {
  accountId: "acc_with_endpoint",
  url: "https://hooks.example/in",
  secrets: [{ secret: "whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0", expiresAt: null }],
  createdAt: NOW,
  updatedAt: NOW,
  failingSince: null,
  disabledAt: null,
  disabledReason: null
}

if ("skip" in database) {
  describe.skip(`PostgreSQL delivery statements (${database.skip})`, () => it("skipped", () => {}))
} else {
  describe("PostgreSQL delivery statements", () => {
    // Workers delivering at once share statements: their claims are one UPDATE … SKIP LOCKED taking as
    // many rows, their endpoint lookups one read, their attempt rows one insert and their results one
    // update; each worker still gets its own message, the right endpoint, its own attempt row and result.
    it.effect("deliveries made at once share their claims, lookups, attempt rows and results, each with its own outcome", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        const calls = new Map<string, number>()
        const counted = Layer.effect(
          Database.Database,
          Effect.map(Database.Database, (db) =>
            Database.Database.of({
              ...db,
              query: (statement, values, timeout) => {
                calls.set(statement.text, (calls.get(statement.text) ?? 0) + 1)
                return db.query(statement, values, timeout)
              }
            }))
        ).pipe(Layer.provide(PostgresPetstore.layerDatabase({ url, poolSize: 4 })))
        const stores = Layer.mergeAll(MessageStorePg.layer(), WebhookStoresPg.layer).pipe(Layer.provide(counted))

        yield* Effect.gen(function*() {
          const messages = yield* MessageStore.MessageStore
          const endpoints = yield* WebhookEndpoint.WebhookEndpointStore
          const attempts = yield* WebhookAttempt.WebhookAttemptStore
          yield* endpoints.put(endpoint)
          const ids = Array.from({ length: WORKERS }, (_, i) => `msg_${String(i).padStart(3, "0")}`)
          const accountOf = (i: number) => i % 2 === 0 ? endpoint.accountId : "acc_without_endpoint"
          yield* Effect.forEach(ids, (id, i) => messages.insert(MessageQueue.queuedMessage(id, accountOf(i), `m ${i}`, NOW - 1_000 + i)))
          calls.clear()

          const delivered = yield* Effect.all(
            ids.map(() =>
              Effect.gen(function*() {
                const claimed = yield* messages.claim(NOW, LEASE)
                if (Option.isNone(claimed)) return Option.none()
                const m = claimed.value
                const found = yield* endpoints.find(m.accountId)
                yield* attempts.record({
                  messageId: m.id,
                  accountId: m.accountId,
                  attempt: m.attempts,
                  url: Option.match(found, { onNone: () => "none", onSome: (e) => e.url }),
                  startedAt: NOW,
                  durationMillis: 1,
                  statusCode: 204,
                  error: null
                })
                yield* messages.markDelivered(m.id, NOW + 1)
                return Option.some({ id: m.id, accountId: m.accountId, found: Option.isSome(found) })
              })
            ),
            { concurrency: "unbounded" }
          )
          const kinds = [...calls.entries()]

          // Each message delivered once, by one worker, with the endpoint of its own account.
          const outcomes = delivered.flatMap(Option.toArray)
          expect(outcomes.map((o) => o.id).sort()).toEqual(ids)
          for (const o of outcomes) expect(o.found).toBe(o.accountId === endpoint.accountId)
          for (const id of ids) {
            const m = yield* messages.find(id)
            expect(Option.map(m, (m) => [m.status, m.attempts, m.updatedAt])).toEqual(Option.some(["delivered", 1, NOW + 1]))
            const log = yield* attempts.list(id)
            expect(log.map((a) => [a.attempt, a.statusCode])).toEqual([[1, 204]])
          }
          expect(yield* messages.pendingCounts).toEqual({ queued: 0, processing: 0 })

          // Fewer statements than deliveries, of every kind: what the workers asked for at once went together.
          expect(kinds.length).toBe(4)
          for (const [text, count] of kinds) expect(count, text).toBeLessThanOrEqual(WORKERS / 2)
        }).pipe(Effect.provide(stores))
      }), 60_000)
  })
}
