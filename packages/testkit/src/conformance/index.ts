/**
 * The model-based HTTP conformance checker, for any base URL. Plain Node: no test runner needed.
 *
 * @since 1.0.0
 */
export * as HttpExchange from "./HttpExchange.js"
export * as OpenApiChecker from "./OpenApiChecker.js"
export * as ConformanceModel from "./Model.js"
export * as TokenBounds from "./TokenBounds.js"
export { formatReport, parseKey, runConformance } from "./Runner.js"
export type { ConformanceFailure, ConformanceOptions, ConformanceReport } from "./Runner.js"
