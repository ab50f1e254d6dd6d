/**
 * `petstore serve`: the configuration from the environment, then the server on the services it
 * chooses, until interrupted. The command line's `serve` runs this; `bin` runs it directly when
 * `serve` is the whole command, without loading the command line (effect/cli and its platform services).
 */
import * as Effect from "effect/Effect"
import { CliFailure, configuration, describe, explained } from "./CommandFailure.js"
import type { ServerConfig } from "./ServerConfig.js"
import * as Main from "./Main.js"

/** Runs the server on the services `services` chooses for the configuration. */
export const serve = (services: (config: ServerConfig) => Main.ServicesLayer = Main.services) =>
  Effect.flatMap(configuration, (conf) =>
    Main.serve(conf, services(conf)).pipe(Effect.mapError((error) => new CliFailure({ message: describe(error) }))))

/** Whether `argv` (as `process.argv`) is exactly `petstore serve`, which needs no parsing. */
export const isServeAlone = (argv: ReadonlyArray<string>): boolean => argv.length === 3 && argv[2] === "serve"

/** `petstore serve` as `bin` runs it: every failure explained on stderr. */
export const run = (): Effect.Effect<never, CliFailure> => explained(serve())
