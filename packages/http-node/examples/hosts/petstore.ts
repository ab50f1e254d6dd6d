import { MessageProcessor, Petstore } from "@petstore/core"
import { App } from "@petstore/http-node"
import { Layer, ManagedRuntime, Option } from "effect"

// The pet store over in-memory stores, as every host below mounts it.
export const PetstoreLive = App.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
  Layer.provideMerge(Petstore.layerMemory()),
  Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
)

// A host that is not itself an Effect program keeps the pet store in a runtime, disposed on shutdown.
export const makeRuntime = () => ManagedRuntime.make(PetstoreLive)
export type PetstoreRuntime = ReturnType<typeof makeRuntime>
