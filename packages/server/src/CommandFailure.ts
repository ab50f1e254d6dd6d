/**
 * How a `petstore` command fails: one line on stderr (`petstore: …`) that says why, then a
 * non-zero exit code. Shared by the command line and by `petstore serve`'s direct start.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { describeError, ServerConfig } from "./Config.js"

/** A command failed for a reason the user can act on; `message` is the whole explanation. */
export class CliFailure extends Data.TaggedError("CliFailure")<{ readonly message: string }> {}

/** The one-line explanation of any error a command can meet. */
export const describe = (error: unknown): string =>
  error instanceof Config.ConfigError
    ? `invalid configuration: ${describeError(error)}`
    : error instanceof Error
    ? error.message
    : typeof error === "object" && error !== null && "message" in error
    ? String(error.message)
    : String(error)

/**
 * `self` with every failure explained on stderr before it fails with a `CliFailure`, so the caller
 * only turns failure into an exit code; interruption (Ctrl-C) stays an interruption.
 */
export const explained = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, CliFailure, R> =>
  Effect.catchCause(self, (cause) => {
    if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const message = Option.match(Cause.findErrorOption(cause), {
      onNone: () => `internal error: ${describe(Cause.squash(cause))}`,
      onSome: (e) => (e instanceof CliFailure ? e.message : describe(e))
    })
    return Effect.andThen(Console.error(`petstore: ${message}`), Effect.fail(new CliFailure({ message })))
  })

/** The configuration from the environment, a failure to read it explained. */
export const configuration = Effect.mapError(ServerConfig, (error) => new CliFailure({ message: describe(error) }))
