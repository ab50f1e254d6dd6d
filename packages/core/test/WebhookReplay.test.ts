import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AccountStore } from "../src/AccountStore.js"
import { queuedMessage } from "../src/MessageQueue.js"
import { MessageStore } from "../src/MessageStore.js"
import { SecureRandom } from "../src/SecureRandom.js"
import { WebhookAttemptStore } from "../src/WebhookAttempt.js"
import { WebhookEndpointStore } from "../src/WebhookEndpoint.js"
import { Webhooks } from "../src/Webhooks.js"

/** The in-memory store, where a worker claims a message the moment a replay has queued it again. */
const claimedAtOnce = Layer.effect(
  MessageStore,
  Effect.map(Effect.service(MessageStore), (store) =>
    MessageStore.of({
      ...store,
      requeue: (id, now) => Effect.andThen(store.requeue(id, now), store.claim(now, 30_000))
    }))
).pipe(Layer.provide(MessageStore.layerMemory))

describe("Webhooks: replay", () => {
  it.effect("answers the message as the replay left it (queued, its attempts as they were), though a worker took it at once", () =>
    Effect.gen(function*() {
      const store = yield* MessageStore
      yield* store.insert({ ...queuedMessage("msg_1", "acc_1", "again", 0), status: "failed", attempts: 3, lastError: "endpoint answered 500" })
      const answer = yield* (yield* Webhooks).replay("msg_1")
      expect(answer).toMatchObject({ id: "msg_1", status: "queued", attempts: 3 })
      // The worker's claim is what the store holds now.
      expect(yield* store.find("msg_1")).toMatchObject({ value: { status: "processing", attempts: 4 } })
    }).pipe(Effect.provide(
      Webhooks.layer().pipe(
        Layer.provideMerge(Layer.mergeAll(claimedAtOnce, AccountStore.layerMemory, WebhookEndpointStore.layerMemory, WebhookAttemptStore.layerMemory)),
        Layer.provide(SecureRandom.seeded(1))
      )
    )))
})
