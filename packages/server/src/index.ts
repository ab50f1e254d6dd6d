/**
 * The standalone server: configuration, the choice of stores, the `petstore` command line.
 *
 * @since 1.0.0
 */
export * as Cli from "./Cli.js"
export * as Config from "./Config.js"
export * as Main from "./Main.js"
export * as CountedOutcomes from "./CountedOutcomes.js"
export * as InstrumentedStores from "./InstrumentedStores.js"
export * as Metrics from "./Metrics.js"
export * as ServerMetrics from "./ServerMetrics.js"
export * as StoreRegistration from "./StoreRegistration.js"
export * as StoreRegistry from "./StoreRegistry.js"
