/** A layer of stores with every store port it provides instrumented, as the server's metrics do it. */
import { Layers } from "@petstore/core"
import type * as Layer from "effect/Layer"
import * as InstrumentedStores from "../../src/InstrumentedStores.js"

/** `stores` with each store port instrumented (the layer itself when nothing is measured or traced). */
export const instrumented = <A, E, R>(
  stores: Layer.Layer<A, E, R>,
  options: InstrumentedStores.InstrumentOptions
): Layer.Layer<A, E, R> =>
  options.metrics === undefined && !options.tracing ? stores : Layers.map(stores, (context) => InstrumentedStores.instrumentContext(context, options))
