// COMPARISON, not a production configuration: our own server, with the same configuration as
// `bin.js serve` on the durable store, but with group commit turned off (GroupCommit maxBatch 1: one
// transaction, one fsync, per write). This is the "one commit per request" that the durable POST
// target is measured against: same code path, only the batching differs.
import { MessageProcessor } from "@petstore/core"
import { Config, Main } from "@petstore/server"
import * as Sqlite from "@petstore/sqlite"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"

const program = Effect.flatMap(Config.ServerConfig, (config) => {
  if (config.store === undefined || config.store._tag !== "sqlite") return Effect.die(new Error("PETSTORE_STORE must be sqlite"))
  const services = Sqlite.layerPetstore({
    filename: config.store.filename,
    groupCommit: { maxBatch: 1 },
    petstore: { environment: config.environment }
  }).pipe(Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly))
  return Main.serve(config, services)
})

const fiber = Effect.runFork(program)
fiber.addObserver((exit) => {
  const stopped = Exit.isSuccess(exit) || Cause.hasInterruptsOnly(exit.cause)
  if (!stopped) console.error(Cause.pretty(exit.cause))
  process.exit(stopped ? 0 : 1)
})
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => Effect.runFork(Fiber.interrupt(fiber)))
