/**
 * `GET /admin/v1/health`: what `/readyz` knows, for the console's dashboard, always 200 while the
 * server serves (it reports; it does not refuse): whether the instance is ready, whether it is
 * draining, and each dependency (the store, the rate limiter) with the reason it is not up.
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import type { Readiness } from "@petstore/core"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Operation from "../operation.js"
import { adminErrors } from "./adminEndpoint.js"

/** What the application's health knows: the readiness probe `/readyz` reads, and whether it drains. */
export class HealthProbe extends Context.Service<
  HealthProbe,
  { readonly report: Effect.Effect<Readiness.Report>; readonly draining: () => boolean }
>()("@petstore/http-node/HealthProbe") {}

export const Dependency = Schema.Struct({
  name: Schema.Literals(["store", "limiter"]),
  ready: Schema.Boolean.annotate({ description: "Up, or degraded (the instance serves without it)." }),
  error: Schema.NullOr(Schema.String).annotate({ description: "Why it is not up (never a URL or a password); `null` when it is." })
})

/** The answer of `GET /admin/v1/health`: readiness, draining, and each dependency with why it is not up. */
export const AdminHealth = Schema.Struct({
  ready: Schema.Boolean.annotate({ description: "What `/readyz` answers: every dependency ready and not draining." }),
  draining: Schema.Boolean.annotate({ description: "The server is shutting down (`/readyz` answers 503)." }),
  dependencies: Schema.Array(Dependency)
}).annotate({ identifier: "AdminHealth" })

export const endpoint = HttpApiEndpoint.get("adminHealth", "/health", {
  success: AdminHealth,
  error: [...adminErrors]
})

/** One dependency: its state, and its own reason when it is not up (else the state's name). */
const dependency = (name: "store" | "limiter", state: Readiness.State, reason: string | undefined) => ({
  name,
  ready: state !== "down",
  error: state === "up" ? null : reason ?? state
})

/** The dependencies of `report`, each with its own reason. */
export const dependenciesOf = (report: Readiness.Report): typeof AdminHealth.Type["dependencies"] => [
  dependency("store", report.checks.store, report.reasonOf.store),
  dependency("limiter", report.checks.rateLimiter, report.reasonOf.rateLimiter)
]

export const adminHealth = Operation.makeAdmin({
  endpoint,
  handler: Effect.map(Effect.serviceOption(HealthProbe), (probe) => {
    const handle: Operation.HandlerOf<typeof endpoint, Operation.AdminContext> = () =>
      Option.match(probe, {
        onNone: () => Effect.succeed({ value: { ready: true, draining: false, dependencies: [] } }),
        onSome: ({ draining, report }) =>
          Effect.map(report, (r) => ({
            value: { ready: r.ready && !draining(), draining: draining(), dependencies: dependenciesOf(r) }
          }))
      })
    return handle
  })
})
