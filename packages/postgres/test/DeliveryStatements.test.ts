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

/** A node of a plan from `EXPLAIN (FORMAT JSON)`. */
interface PlanNode {
  readonly "Node Type": string
  readonly "Index Name"?: string
  readonly "Shared Hit Blocks"?: number
  readonly "Shared Read Blocks"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/** Every node of a plan. */
const nodes = (plan: PlanNode): ReadonlyArray<PlanNode> => [plan, ...(plan.Plans ?? []).flatMap(nodes)]

/** The pages a plan run with `ANALYZE, BUFFERS` touched (its top node counts its children's). */
const pagesRead = (plan: PlanNode): number => (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0)

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

    // A queue's history leaves dead index entries behind it (each message's queued and claimed
    // versions) until a vacuum. A bitmap scan reads them all every time and never marks them; an index
    // walk marks them dead as it passes, so the next one skips them. The claim and the workers' look for
    // the next message due must be index walks, or every claim costs the whole history since the last vacuum.
    it.live("with a history of delivered messages and no vacuum, claims and the look for the next due walk an index and read few pages", () =>
      Effect.gen(function*() {
        const url = yield* Effect.promise(() => database.freshUrl())
        const seen = new Map<string, ReadonlyArray<unknown>>()
        const counted = Layer.effect(
          Database.Database,
          Effect.map(Database.Database, (db) =>
            Database.Database.of({
              ...db,
              // Recorded when run (a store may build a statement's effect once, at its start).
              query: <R>(statement: Database.Statement, values: ReadonlyArray<unknown>, timeout?: Duration.Input) =>
                Effect.andThen(Effect.sync(() => seen.set(statement.text, values)), db.query<R>(statement, values, timeout))
            }))
        ).pipe(Layer.provide(PostgresPetstore.layerDatabase({ url, poolSize: 4 })))
        const sql = TestDatabase.connect(url)
        yield* Effect.addFinalizer(() => Effect.promise(() => sql.end()))
        yield* Effect.gen(function*() {
          const messages = yield* MessageStore.MessageStore
          // The hardest case for the planner: no vacuum and no statistics since the table was made.
          yield* Effect.promise(() => sql.query("ALTER TABLE messages SET (autovacuum_enabled = false)"))
          const HISTORY = 2_000
          yield* Effect.forEach(
            Array.from({ length: HISTORY }, (_, i) => i),
            (i) => messages.insert(MessageQueue.queuedMessage(`old_${i}`, "acc", `m ${i}`, NOW - 10_000 + i)),
            { concurrency: 50 }
          )
          yield* Effect.forEach(Array.from({ length: HISTORY }), () =>
            Effect.flatMap(messages.claim(NOW, LEASE), (m) => Option.isSome(m) ? messages.markDelivered(m.value, NOW) : Effect.die("nothing claimed")), { concurrency: 20 })
          yield* messages.insert(MessageQueue.queuedMessage("msg_new", "acc", "new", NOW))

          // A statement's plan as the server's prepared statement may run it: the plan made for its values
          // (a custom plan), or the one made once for any values (generic), which PostgreSQL switches to
          // after five runs when it costs no more. With `analyze`, it is run (in a transaction rolled back).
          const plan = (text: string, values: ReadonlyArray<unknown>, mode: "custom" | "generic", analyze: boolean) =>
            Effect.promise(() =>
              TestDatabase.withClient(url, async (client) => {
                await client.query("BEGIN")
                try {
                  await client.query(`SET LOCAL plan_cache_mode = force_${mode}_plan`)
                  await client.query(`PREPARE inspected AS ${text}`)
                  // EXPLAIN takes no bound parameters: the values are written into it as literals.
                  const literal = (v: unknown): string =>
                    v === null ? "NULL" : Array.isArray(v)
                      ? client.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/["\\]/g, "\\$&")}"`).join(",")}}`)
                      : typeof v === "number" ? String(v) : client.escapeLiteral(String(v))
                  const args = values.map(literal).join(", ")
                  const { rows: [row] } = await client.query(
                    `EXPLAIN (${analyze ? "ANALYZE, BUFFERS, " : ""}FORMAT JSON) EXECUTE inspected${args === "" ? "" : `(${args})`}`
                  )
                  return (row!["QUERY PLAN"] as Array<{ Plan: PlanNode }>)[0]!.Plan
                } finally {
                  await client.query("ROLLBACK")
                  await client.query("DEALLOCATE ALL")
                }
              })
            )
          const heapPages = Number((yield* Effect.promise(() => sql.query("SELECT pg_relation_size('messages') / 8192 AS pages")))[0]!.pages)
          expect(heapPages).toBeGreaterThan(40)

          // The statements as the store runs them, each caught once.
          seen.clear()
          expect(yield* messages.nextClaimAt).toEqual(Option.some(NOW))
          const [[nextText, nextValues]] = [...seen.entries()]
          seen.clear()
          expect(Option.map(yield* messages.claim(NOW, LEASE), (m) => m.id)).toEqual(Option.some("msg_new"))
          const [[claimText, claimValues]] = [...seen.entries()]

          for (const mode of ["custom", "generic"] as const) {
            // The look for the next message due: the first entry of messages_due.
            const next = yield* plan(nextText!, nextValues!, mode, false)
            expect(nodes(next).some((n) => n["Node Type"].startsWith("Bitmap")), mode).toBe(false)
            expect(nodes(next).some((n) => n["Node Type"] === "Index Scan" && n["Index Name"] === "messages_due"), mode).toBe(true)
            // The claim: messages_pending walked in seq order.
            const claim = yield* plan(claimText!, claimValues!, mode, false)
            expect(nodes(claim).some((n) => n["Node Type"].startsWith("Bitmap")), mode).toBe(false)
            expect(nodes(claim).some((n) => n["Node Type"] === "Index Scan" && n["Index Name"] === "messages_pending"), mode).toBe(true)
          }
          // A walk marks the history's entries dead as it passes (once no transaction can see their rows),
          // so the walks after it skip them: a few pages, where the history spans many more (nothing is
          // left to claim, so the claim walks every entry).
          // The marking waits for any snapshot older than the last delivery (an autoanalyze, say): the walk
          // is repeated until it reads few pages, 50 times at most.
          // An unmarked walk visits every page of the history (it spreads over all of them); a marked one, the index alone.
          const few = heapPages / 2
          for (const [text, values] of [[nextText!, nextValues!], [claimText!, claimValues!]] as const) {
            for (let walk = 0; walk < 50 && pagesRead(yield* plan(text, values, "custom", true)) >= few; walk++) {
              yield* Effect.sleep(Duration.millis(100))
            }
            for (const mode of ["custom", "generic"] as const) {
              expect(pagesRead(yield* plan(text, values, mode, true)), `${mode}: ${text}`).toBeLessThan(few)
            }
          }

          // With statistics taken while little was due, then a burst of due messages (after an outage,
          // retries falling due together): the claim never takes messages_due, which would read every
          // message due and sort them by seq. (With such statistics the planner may still read
          // messages_pending whole, as the claim always did before: docs/capacity.md.)
          yield* Effect.promise(() => sql.query("ANALYZE messages"))
          yield* Effect.forEach(
            Array.from({ length: HISTORY }, (_, i) => i),
            (i) => messages.insert(MessageQueue.queuedMessage(`burst_${i}`, "acc", `b ${i}`, NOW - 5_000 + i)),
            { concurrency: 50 }
          )
          for (const mode of ["custom", "generic"] as const) {
            const claim = yield* plan(claimText!, claimValues!, mode, false)
            const shape = `${mode}: ${nodes(claim).map((n) => `${n["Node Type"]}${n["Index Name"] === undefined ? "" : ` on ${n["Index Name"]}`}`).join(" < ")}`
            expect(nodes(claim).some((n) => n["Index Name"] === "messages_due"), shape).toBe(false)
            expect(nodes(claim).some((n) => n["Index Name"] === "messages_pending"), shape).toBe(true)
          }
        }).pipe(Effect.provide(storesOn(counted)))
      }).pipe(Effect.scoped), 120_000)

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
