/**
 * A standalone server built in this process from environment-style settings, on a free port: the
 * composition root as `petstore serve` runs it, with services that a test may replace.
 */
import { Server } from "@petstore/http-node"
import { ConfigProvider, Context, Effect, Exit, Layer, Scope } from "effect"
import { type ServerConfig as Config, ServerConfig } from "../../src/Config.js"
import * as Main from "../../src/Main.js"

export interface InProcessServer {
  readonly url: string
  readonly config: Config
  readonly close: () => Promise<void>
}

/** Reads a configuration from `env` (the memory store unless given), on a free port. */
export const config = (env: Record<string, string>, extra: Partial<Config> = {}): Promise<Config> =>
  Effect.runPromise(
    Effect.provideService(ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown({ PORT: "1", PETSTORE_STORE: "memory", ...env }))
  ).then((c) => ({ ...c, port: 0, ...extra }))

/** Starts the server of `conf` (its stores as configured, or `services`), optionally under `wrap` (a tracer). */
export const start = async (
  conf: Config,
  services: Main.ServicesLayer = Main.services(conf),
  wrap: <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) => Effect.Effect<A, E, Scope.Scope> = (e) => e
): Promise<InProcessServer> => {
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(wrap(Layer.build(Main.layer(conf, services))).pipe(Scope.provide(scope)))
  return {
    url: Context.get(context, Server.ServerAddress).url,
    config: conf,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
