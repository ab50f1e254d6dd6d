import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option, Redacted, Schedule } from "effect"
import { Accounts } from "../src/Accounts.js"
import { MessageProcessor } from "../src/MessageProcessor.js"
import { MessageQueue } from "../src/MessageQueue.js"
import { Pets } from "../src/Pets.js"
import * as Petstore from "../src/Petstore.js"
import { RateLimiter } from "../src/RateLimiter.js"
import type { CategoryId } from "../src/Pet.js"

const memory = (options: Petstore.PetstoreOptions = {}) =>
  Petstore.layerMemory(options).pipe(Layer.provide(MessageProcessor.layerRecordOnly))

describe("Petstore", () => {
  it.effect("layerMemory wires accounts, pets, the rate limiter and the message queue together", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, key } = yield* accounts.create({ plan: "free" })
      expect(Redacted.value(key.key)).toMatch(/^psk_live_/)
      const principal = Option.getOrThrow(yield* accounts.verify(Redacted.value(key.key)))
      expect((yield* (yield* RateLimiter).admit(principal)).verdict).toBe("allowed")
      const pet = yield* (yield* Pets).create({ name: "Rex", categoryId: 1 as CategoryId })
      expect(pet.id).toBe(1)
      const message = yield* (yield* MessageQueue).submit(account.id, "hi")
      expect(message.status).toBe("queued")
    }).pipe(Effect.provide(memory())))

  it.effect("options reach the services: the key environment and the limiter's settings", () =>
    Effect.gen(function*() {
      const { key } = yield* (yield* Accounts).create({ plan: "free" })
      expect(Redacted.value(key.key)).toMatch(/^psk_test_/)
      const limiter = yield* RateLimiter
      expect((yield* limiter.admitFailedAuth("198.51.100.1")).verdict).toBe("allowed")
      expect((yield* limiter.admitFailedAuth("198.51.100.1")).verdict).toBe("rate_limited")
    }).pipe(Effect.provide(memory({ environment: "staging", rateLimiter: { failedAuthPerMinute: 1 } }))))

  it.effect("the record-only processor accepts every message, whatever its text or attempt", () =>
    Effect.gen(function*() {
      const processor = yield* MessageProcessor
      for (const [message, attempt] of [["x", 1], ["", 5], ["fail", 2]] as const) {
        expect(yield* Effect.exit(processor.process({ id: "m", accountId: "a", message, attempt }))).toStrictEqual(Exit.void)
      }
    }).pipe(Effect.provide(MessageProcessor.layerRecordOnly)))

  it.live("with the record-only processor a submitted message is delivered", () =>
    Effect.gen(function*() {
      const queue = yield* MessageQueue
      const { id } = yield* queue.submit("acc_rec", "hello")
      // Waits for the delivery itself (a hang fails after 10 s; no speed is asserted).
      const delivered = yield* queue.get("acc_rec", id).pipe(
        Effect.filterOrFail((m) => m.status === "delivered", () => "not yet" as const),
        Effect.retry(Schedule.spaced("10 millis")),
        Effect.timeoutOrElse({ duration: "10 seconds", orElse: () => Effect.fail(new Error("the message was never delivered")) })
      )
      expect(delivered).toMatchObject({ id, status: "delivered" })
    }).pipe(Effect.provide(memory()), Effect.scoped))
})
