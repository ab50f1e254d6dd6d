/**
 * Everything of the testkit that runs in plain Node: the arbitraries, the conformance checker and
 * the fuzzer. The law suites register vitest tests and live in `@petstore/testkit/laws`.
 *
 * @since 1.0.0
 */
export * from "./arbitraries/index.js"
export * from "./conformance/index.js"
export * from "./fuzz/index.js"
export type { LawSuiteOptions } from "./laws/LawSuite.js"
