/**
 * The store adapters, each loaded when the configuration chooses it: a server on memory never loads
 * better-sqlite3, pg or the Redis client, a server on SQLite never loads pg, and none loads the Redis
 * client unless `PETSTORE_REDIS_URL` is set (their modules cost start-up time and resident memory).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** The SQLite adapter (better-sqlite3). */
export const sqlite = Effect.promise(() => import("@petstore/sqlite"))

/** The PostgreSQL adapter (pg). */
export const postgres = Effect.promise(() => import("@petstore/postgres"))

/** The rate limiter on Redis (@redis/client). */
export const redis = Effect.promise(() => import("@petstore/redis"))

/** A layer `make` builds from an adapter's module, loaded when the layer is built. */
export const layerFrom = <M, A, E, R>(
  adapter: Effect.Effect<M>,
  make: (module: M) => Layer.Layer<A, E, R>
): Layer.Layer<A, E, R> => Layer.unwrapEffect(Effect.map(adapter, make))
