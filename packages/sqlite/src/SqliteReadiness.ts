/**
 * The store's readiness on SQLite: a trivial statement on the connection the stores use.
 *
 * @since 1.0.0
 */
import { Readiness } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Connection } from "./Connection.js"

const DOWN: Readiness.Check = { state: "down", reason: "the store (SQLite) cannot be read" }

/** The stores' readiness on SQLite: whether the database answers. @category layers */
export const layer: Layer.Layer<Readiness.StoreReadiness, never, Connection> = Layer.effect(
  Readiness.StoreReadiness,
  Effect.map(Connection, (connection) => {
    // Prepared once; reading the schema's first row touches the file (a plain `SELECT 1` would not).
    const statement = connection.prepare("SELECT count(*) FROM sqlite_master").pluck()
    return {
      check: Effect.sync((): Readiness.Check => {
        try {
          statement.get()
          return Readiness.UP
        } catch {
          return DOWN
        }
      })
    }
  })
)
