/**
 * `petstore serve --help` and `serve`'s one option, `--log-level`: the help names every variable
 * that configures the server (from `Variables`, the one table of them), and `--log-level` takes the
 * levels `PETSTORE_LOG_LEVEL` takes, for this run.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { LOG_LEVELS } from "./ServerConfig.js"
import * as Variables from "./Variables.js"
import { VERSION } from "./Version.js"

/** The text `petstore serve --help` prints. */
export const text = (): string =>
  [
    `petstore serve (Pet Store Service ${VERSION})`,
    "",
    "USAGE",
    "  petstore serve [--log-level LEVEL]",
    "",
    "Runs the HTTP server until SIGTERM or SIGINT, configured by the environment variables below.",
    "",
    "OPTIONS",
    `  --log-level ${LOG_LEVELS.join("|")}`,
    "      Lines below this level are not written; for this run, in place of PETSTORE_LOG_LEVEL.",
    "  -h, --help",
    "      Prints this help.",
    "",
    "ENVIRONMENT",
    Variables.describe().replace(/^/gm, "  "),
    ""
  ].join("\n")

/** Whether `argv` (as `process.argv`) asks for `serve`'s help. */
export const asksHelp = (argv: ReadonlyArray<string>): boolean =>
  argv[2] === "serve" && argv.slice(3).some((arg) => arg === "--help" || arg === "-h")

const FLAG = "--log-level"

/**
 * `argv` without `--log-level LEVEL` (or `--log-level=LEVEL`), and the level it gave; a level
 * outside `LOG_LEVELS` is refused, naming them.
 */
export const takeLogLevel = (
  argv: ReadonlyArray<string>
): Result.Result<{ readonly argv: ReadonlyArray<string>; readonly level: string | undefined }, string> => {
  const rest: Array<string> = []
  let level: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === FLAG) {
      level = argv[++i] ?? ""
    } else if (arg.startsWith(`${FLAG}=`)) {
      level = arg.slice(FLAG.length + 1)
    } else {
      rest.push(arg)
    }
  }
  if (level !== undefined && !(LOG_LEVELS as ReadonlyArray<string>).includes(level)) {
    return Result.fail(`--log-level must be one of ${LOG_LEVELS.join(", ")} (as PETSTORE_LOG_LEVEL), got ${JSON.stringify(level)}`)
  }
  return Result.succeed({ argv: rest, level })
}

/** `self` reading `PETSTORE_LOG_LEVEL` as `level` (the rest of its configuration from the environment, as before). */
export const withLogLevel = <A, E, R>(self: Effect.Effect<A, E, R>, level: string | undefined): Effect.Effect<A, E, R> =>
  level === undefined
    ? self
    : Effect.flatMap(ConfigProvider.ConfigProvider, (provider) =>
      Effect.provideService(
        self,
        ConfigProvider.ConfigProvider,
        ConfigProvider.orElse(ConfigProvider.fromUnknown({ PETSTORE_LOG_LEVEL: level }), provider)
      ))
