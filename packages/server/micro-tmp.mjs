import { Effect, Layer, Option, Deferred } from "effect"
import { MessageQueue, MessageStore, MessageProcessor, WebhookDelivery, WebhookEndpoint, WebhookAttempt, SecureRandom } from "@petstore/core"
const N = Number(process.argv[2] ?? 20000)
let delivered = 0, done
const sender = Layer.succeed(WebhookDelivery.WebhookSender, {
  send: (req) => Effect.async((resume) => { setImmediate(() => { if (++delivered === N) done(); resume(Effect.succeed({ _tag: "Answered", status: 204 })) }) })
})
const program = Effect.gen(function*() {
  const store = yield* MessageStore.MessageStore
  const endpoints = yield* WebhookEndpoint.WebhookEndpointStore
  yield* endpoints.put({ accountId: "acc", url: "http://127.0.0.1:1/x", secrets: [{ secret: "whsec_" + Buffer.alloc(24, 1).toString("base64"), expiresAt: null }], createdAt: 0, updatedAt: 0, failingSince: null, disabledAt: null, disabledReason: null })
  const now = Date.now()
  for (let i = 0; i < N; i++) yield* store.insert(MessageQueue.queuedMessage(`msg_${i}`, "acc", `hello ${i}`, now))
  delivered = 0; const finished = new Promise((r) => { done = r })
  const t0 = process.cpuUsage(); const w0 = performance.now()
  yield* Effect.scoped(Effect.gen(function*() {
    yield* Layer.build(MessageQueue.MessageQueue.layer({ concurrency: 32 }).pipe(Layer.provide(WebhookDelivery.layer())))
    yield* Effect.promise(() => finished)
  }))
  const c = process.cpuUsage(t0); const w = performance.now() - w0
  console.log(`${N} deliveries: ${((c.user + c.system) / N).toFixed(1)} µs CPU each, ${(N / w * 1000).toFixed(0)}/s`)
})
const layers = Layer.mergeAll(MessageStore.MessageStore.layerMemory, WebhookEndpoint.WebhookEndpointStore.layerMemory, WebhookAttempt.WebhookAttemptStore.layerMemory, sender, SecureRandom.SecureRandom.Live)
for (let k = 0; k < 2; k++) await Effect.runPromise(Effect.provide(program, layers))
globalThis.gc?.(); console.log("heapUsed MB", (process.memoryUsage().heapUsed/1e6).toFixed(1))
