/**
 * Arbitraries for the interface's inputs: `Valid` values a conforming server must accept, `Invalid`
 * ones it must refuse (one named defect each). Plain Node: no test runner needed.
 *
 * @since 1.0.0
 */
export * as Invalid from "./Invalid.js"
export * as Valid from "./Valid.js"
export { fromSchema } from "./FromSchema.js"
/** The fast-check these arbitraries are made with (sample, assert and combine them with it). */
export * as fc from "fast-check"
