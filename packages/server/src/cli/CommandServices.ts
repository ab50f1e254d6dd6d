/**
 * Where the commands get their services: each command opens the configured store for its own
 * duration, and a failure to open it is one line.
 */
import { Accounts, type Errors, Layers, Usage, Webhooks } from "@petstore/core"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { CliFailure, configuration, describe } from "../CommandFailure.js"
import * as Main from "../Main.js"
import type { ServerConfig } from "../ServerConfig.js"

/** Where the commands get their services; `Main.services` unless a test or embedder says otherwise. */
export interface CliOptions {
  readonly services: (config: ServerConfig) => Main.ServicesLayer
  /** The accounts service alone for the account and key commands (default: from `services`). */
  readonly accounts?: ((config: ServerConfig) => Layer.Layer<Accounts.Accounts, unknown>) | undefined
  /** The webhook administration service for the webhook commands (default: `Main.webhookServices`). */
  readonly webhooks?: ((config: ServerConfig) => Layer.Layer<Webhooks.Webhooks, unknown>) | undefined
}

const EMPTY_STORE_WARNING =
  "warning: the store holds no accounts. With the in-memory store (no durable store configured) nothing is kept between commands, so no account or key created earlier can be found."

const cannotOpen = <A>(layer: Layer.Layer<A, unknown>): Layer.Layer<A, CliFailure> =>
  Layers.mapError(layer, (error) => new CliFailure({ message: `cannot open the store: ${describe(error)}` }))

/** The services the commands run with, each opened on the configuration for one command. */
export interface CommandServices {
  readonly withAccounts: <A, E>(f: (accounts: Accounts.Accounts["Service"]) => Effect.Effect<A, E>) => Effect.Effect<A, E | CliFailure>
  readonly withWebhooks: <A, E>(f: (webhooks: Webhooks.Webhooks["Service"]) => Effect.Effect<A, E>) => Effect.Effect<A, E | CliFailure>
  /** The usage service and the accounts on the configured store; a failure when the server counts none. */
  readonly withUsage: <A, E>(
    f: (usage: Usage.Usage["Service"], accounts: Accounts.Accounts["Service"]) => Effect.Effect<A, E>
  ) => Effect.Effect<A, E | CliFailure>
  /** Key commands need an account from an earlier command, which an in-memory store cannot have. */
  readonly warnIfEmpty: (accounts: Accounts.Accounts["Service"]) => Effect.Effect<void, Errors.StoreUnavailable>
}

export const commandServices = (options: CliOptions): CommandServices => ({
  withAccounts: (f) =>
    Effect.flatMap(configuration, (conf) =>
      Effect.flatMap(Accounts.Accounts, f).pipe(
        Effect.provide(cannotOpen(options.accounts === undefined ? options.services(conf) : options.accounts(conf)))
      )),
  withWebhooks: (f) =>
    Effect.flatMap(configuration, (conf) =>
      Effect.flatMap(Webhooks.Webhooks, f).pipe(Effect.provide(cannotOpen((options.webhooks ?? Main.webhookServices)(conf))))),
  withUsage: (f) =>
    Effect.flatMap(configuration, (conf) =>
      Effect.gen(function*() {
        const usage = yield* Effect.serviceOption(Usage.Usage)
        if (Option.isNone(usage)) {
          return yield* new CliFailure({ message: "usage is not counted (PETSTORE_USAGE=off, or a store without usage counts)" })
        }
        return yield* f(usage.value, yield* Accounts.Accounts)
      }).pipe(Effect.provide(cannotOpen(options.services(conf))))),
  warnIfEmpty: (accounts) => Effect.flatMap(accounts.countAccounts, (n) => (n === 0 ? Console.error(EMPTY_STORE_WARNING) : Effect.void))
})
