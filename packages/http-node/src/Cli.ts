/**
 * The `petstore` command line: `serve`, and account and key management.
 *
 * @since 1.0.0
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import { ServerConfig } from "./Config.js"
import * as Main from "./Main.js"

const serve = Command.make("serve", {}, () => Effect.flatMap(ServerConfig, (config) => Main.serve(config))).pipe(
  Command.withDescription("Run the HTTP server (configuration from the environment; see README).")
)

const petstore = Command.make("petstore").pipe(
  Command.withDescription("Pet Store Service"),
  Command.withSubcommands([serve])
)

/** Runs the command line with `argv` (as `process.argv`). */
export const cli = Command.run(petstore, { name: "petstore", version: "1.0.0" })
