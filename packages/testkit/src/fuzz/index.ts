/**
 * The seeded raw-socket fuzzer, for any base URL. Plain Node: no test runner needed.
 *
 * @since 1.0.0
 */
export { formatFuzzReport } from "./Report.js"
export { runFuzz } from "./Runner.js"
export type { FailureExample, FuzzOptions, FuzzReport } from "./Runner.js"
