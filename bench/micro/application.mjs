// The whole application of `serve` on the in-memory store, under the settings `env` gives (metrics,
// usage ...), with an enterprise key and 100 pets: its `handle`, a request of that key for a
// method, URL and body, `fork` (runs an effect in a fiber of its own with the application's services,
// as the server's request runner does) and `close`. Shared by the micro-benchmarks that compare whole requests.
// `keys` accounts are made (one key each): a micro-benchmark that sends more than an account's 10⁶
// requests a minute (the most a plan allows) spreads them over the keys (`request(…, n)`).
import { Accounts, Pets } from "@petstore/core"
import { App as AppModule } from "@petstore/http-node"
import { Config, Main, ServerMetrics } from "@petstore/server"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { BENCH_LIMITS, draft } from "../fixture.mjs"

export const application = async (settings, keys = 1) => {
  const env = new Map([["PETSTORE_STORE", "memory"], ...Object.entries(settings)])
  const config = await Effect.runPromise(
    Effect.provideService(Config.ServerConfig, ConfigProvider.ConfigProvider, ConfigProvider.fromUnknown(Object.fromEntries(env)))
  )
  const appLayer = ServerMetrics.appLayer(config, (metrics) =>
    AppModule.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [], metrics })
  ).pipe(Layer.provideMerge(ServerMetrics.observeServices(config, Main.services(config))))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(appLayer, scope))
  const { handle, authorizations } = await Effect.runPromise(Effect.gen(function*() {
    const accounts = yield* Accounts.Accounts
    const pets = yield* Pets.Pets
    const authorizations = []
    for (let i = 0; i < keys; i++) {
      const { key } = yield* accounts.create({ plan: "enterprise", limits: BENCH_LIMITS })
      authorizations.push(`Bearer ${Redacted.value(key.key)}`)
    }
    for (let i = 1; i <= 100; i++) yield* pets.create(draft(i))
    return { handle: (yield* AppModule.App).handle, authorizations }
  }).pipe(Effect.provide(context)))
  const request = (method, url, bytes = new Uint8Array(), n = 0) => ({
    method,
    url,
    header: (name) => (name === "authorization" ? authorizations[n] : name === "content-type" && bytes.length > 0 ? "application/json" : undefined),
    remoteAddress: "127.0.0.1",
    readBody: () => Effect.succeed({ _tag: "Body", bytes })
  })
  // As the server's request runner (http-node's internal/hosts/runner.js): each request in a fiber of
  // its own, with the services the application was built with.
  const fork = Effect.runForkWith(context)
  return { handle, request, fork, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}
