/**
 * What every law suite of the testkit shares.
 *
 * @since 1.0.0
 */

/**
 * Options of a law suite.
 *
 * Every test (and every run of a property test) builds the given layer afresh and expects an empty
 * store from each build: a new in-memory database, a new schema, or a layer that truncates its tables
 * when it is acquired.
 *
 * @category models
 */
export interface LawSuiteOptions {
  /** Runs per property test (default 30; a few suites cap it lower); lower it for adapters whose layer is slow to build. */
  readonly numRuns?: number | undefined
}
