/**
 * The `petstore` command line: `serve`, and account and key management through the core
 * `Accounts` service on the stores `Main.services` chooses. A full key is printed only by the
 * command that creates it; failures are one line on stderr and a non-zero exit code. The commands
 * are in `cli/`, a module per group (`accounts`, `keys`, `webhooks`, `usage`, the store commands).
 *
 * @since 1.0.0
 */
import * as CliConfig from "effect/cli/CliConfig"
import * as CliError from "effect/cli/CliError"
import * as Command from "effect/cli/Command"
import * as GlobalFlag from "effect/cli/GlobalFlag"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { accounts } from "./cli/AccountCommands.js"
import { type CliOptions, commandServices } from "./cli/CommandServices.js"
import { keys } from "./cli/KeyCommands.js"
import { importSqlite, migrate, petIds } from "./cli/StoreCommands.js"
import { usage } from "./cli/UsageCommand.js"
import { webhooks } from "./cli/WebhookCommands.js"
import { CliFailure, explained } from "./CommandFailure.js"
import * as Main from "./Main.js"
import * as ServeCommand from "./ServeCommand.js"
import * as ServeHelp from "./ServeHelp.js"
import { VERSION } from "./Version.js"

export { CliFailure } from "./CommandFailure.js"
export type { CliOptions } from "./cli/CommandServices.js"

/** Builds the `petstore` command line. @category constructors */
export const make = (options: CliOptions) => {
  const services = commandServices(options)
  const serve = Command.make("serve", {}, () => ServeCommand.serve(options.services)).pipe(
    Command.withDescription("Run the HTTP server, configured by PETSTORE_* variables: `petstore serve --help` lists them.")
  )
  const petstore = Command.make("petstore").pipe(
    Command.withDescription("Pet Store Service"),
    Command.withSubcommands([serve, migrate, petIds, importSqlite, usage(services), accounts(services), keys(services), webhooks(services)])
  )
  const run = Command.runWith(petstore, { version: VERSION, renderErrors: false })

  /**
   * Runs the command line with `argv` (as `process.argv`). Every failure has been explained on
   * stderr by the time the effect fails, so the caller only turns failure into an exit code.
   */
  return (argv: ReadonlyArray<string>) => {
    if (ServeHelp.asksHelp(argv)) return Console.log(ServeHelp.text())
    // The version alone, as scripts read it (Effect's command line would print `petstore v1.0.0`).
    if (argv.length === 3 && argv[2] === "--version") return Console.log(VERSION)
    const flag = ServeHelp.takeLogLevel(argv)
    if (Result.isFailure(flag)) return explained(Effect.fail(new CliFailure({ message: flag.failure })))
    return ServeHelp.withLogLevel(run(flag.success.argv.slice(2)), flag.success.level).pipe(
      // --help and --version only: the other flags Effect's command line gives every command
      // (--completions, --wizard, its own --log-level) stay out of each command's help.
      Effect.provide(CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version] })),
      Effect.catchCause((cause): Effect.Effect<never, CliFailure | CliError.CliError> => {
        const failure = Cause.findErrorOption(cause)
        // What the command line could not parse: one line on stderr, as every other failure.
        if (Option.isSome(failure) && CliError.isCliError(failure.value)) {
          const error = failure.value
          // Help asked for (`--help`) was printed; help shown for an error comes with that error.
          const reasons = error._tag === "ShowHelp" ? error.errors : [error]
          if (reasons.length === 0) return Effect.fail(error)
          return Effect.andThen(
            Console.error(`petstore: ${reasons.map((reason) => reason.message.split("\n")[0]).join("; ")}`),
            Effect.fail(error)
          )
        }
        return explained(Effect.failCause(cause))
      })
    )
  }
}

/** The `petstore` command line on the stores `Main.services` chooses. */
export const cli = make({ services: Main.services, accounts: Main.accountServices })
