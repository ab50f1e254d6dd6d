/**
 * The store's readiness on PostgreSQL: `SELECT 1` through the pool the stores use, with a short
 * bound, so a database that stalls counts as down quickly.
 *
 * @since 1.0.0
 */
import { Readiness } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Database, statement } from "./Database.js"

/** Longest wait for the probe's answer. */
export const PROBE_TIMEOUT = "1 second"

const SELECT_ONE = statement("SELECT 1")
const DOWN: Readiness.Check = { state: "down", reason: "the store (PostgreSQL) cannot be reached" }

/** The stores' readiness on PostgreSQL: whether the database answers. @category layers */
export const layer: Layer.Layer<Readiness.StoreReadiness, never, Database> = Layer.effect(
  Readiness.StoreReadiness,
  Effect.map(Database, (db) => ({
    check: db.query(SELECT_ONE, [], PROBE_TIMEOUT).pipe(
      Effect.as(Readiness.UP),
      Effect.orElseSucceed(() => DOWN)
    )
  }))
)
