import { describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Fiber, Layer, Option } from "effect"
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

/** The message store and the webhook stores on `db`. */
const storesOn = <E>(db: Layer.Layer<Database.Database, E>) =>
  Layer.mergeAll(MessageStorePg.layer(), WebhookStoresPg.layer).pipe(Layer.provide(db))

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
        const stores = storesOn(counted)

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
                yield* messages.markDelivered(m, NOW + 1)
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

    // Two instances (each with its own batch) claiming at once: every claim gets a row of its own, and
    // as many rows are taken as there were claims (the picked rows are chosen once, not per row).
    it.effect("claims made at once on two instances take exactly as many distinct rows", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        const db = PostgresPetstore.layerDatabase({ url, poolSize: 4 })
        const ids = Array.from({ length: 3 * WORKERS }, (_, i) => `msg_${String(i).padStart(3, "0")}`)
        const [one, two] = yield* Effect.all([storesOn(db), storesOn(db)].map((stores) =>
          Effect.map(Layer.build(stores), Context.get(MessageStore.MessageStore))
        ))
        yield* Effect.forEach(ids, (id, i) => one!.insert(MessageQueue.queuedMessage(id, "acc", `m ${i}`, NOW - 1_000 + i)))
        const claimed = yield* Effect.all(
          Array.from({ length: 2 * WORKERS }, (_, i) => (i % 2 === 0 ? one! : two!).claim(NOW, LEASE)),
          { concurrency: "unbounded" }
        )
        const taken = claimed.flatMap(Option.toArray).map((m) => m.id)
        expect(taken.length).toBe(2 * WORKERS)
        expect(new Set(taken).size).toBe(2 * WORKERS)
        expect(yield* one!.pendingCounts).toEqual({ queued: WORKERS, processing: 2 * WORKERS })
      }).pipe(Effect.scoped), 60_000)

    // A claim whose worker is interrupted while its statement is on its way: the row it took is handed
    // back at once (queued, the attempt not counted), not left leased until the lease runs out.
    it.live("an interrupted claim does not keep its message: it is claimable again at once", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        // Every statement takes 300 ms more, so the claim is surely sent before its worker is interrupted.
        const slow = Layer.effect(
          Database.Database,
          Effect.map(Database.Database, (db) =>
            Database.Database.of({
              ...db,
              query: <R>(statement: Database.Statement, values: ReadonlyArray<unknown>, timeout?: Duration.Input) =>
                Effect.andThen(Effect.sleep(Duration.millis(300)), db.query<R>(statement, values, timeout))
            }))
        ).pipe(Layer.provide(PostgresPetstore.layerDatabase({ url, poolSize: 4 })))
        yield* Effect.gen(function*() {
          const messages = yield* MessageStore.MessageStore
          yield* messages.insert(MessageQueue.queuedMessage("msg_1", "acc", "m", NOW - 1_000))
          const worker = yield* Effect.forkChild(messages.claim(NOW, LEASE))
          yield* Effect.sleep(Duration.millis(100))
          yield* Fiber.interrupt(worker)
          // Handed back as soon as the claim's statement answers (well within the lease, which is not over at NOW).
          let status = "processing"
          for (let i = 0; i < 50 && status !== "queued"; i++) {
            yield* Effect.sleep(Duration.millis(100))
            status = Option.match(yield* messages.find("msg_1"), { onNone: () => "none", onSome: (m) => m.status })
          }
          expect(status).toBe("queued")
          const again = yield* messages.claim(NOW, LEASE)
          expect(Option.map(again, (m) => [m.id, m.status, m.attempts])).toEqual(Option.some(["msg_1", "processing", 1]))
        }).pipe(Effect.provide(storesOn(slow)))
      }), 60_000)
  })
}
