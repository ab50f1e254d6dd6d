/** `petstore migrate`, `petstore pet-ids` and `petstore import-sqlite`: the configured store's schema and data. */
import * as Argument from "effect/cli/Argument"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { CliFailure, configuration } from "../CommandFailure.js"
import * as StoreAdmin from "../StoreAdmin.js"

export const migrate = Command.make("migrate", {
  check: Flag.Boolean("check").pipe(
    Flag.withDescription("Apply nothing: list the migrations pending and exit 1 if there are any (for deploy pipelines)."),
    Flag.withDefault(false)
  )
}, ({ check }) =>
  Effect.flatMap(configuration, (conf) =>
    check
      ? StoreAdmin.pendingMigrations(conf).pipe(
        Effect.mapError((error) => new CliFailure({ message: error.message })),
        Effect.flatMap(({ pending, summary }) =>
          Effect.andThen(
            Console.log([summary, ...pending.map((m) => `pending: ${m}`)].join("\n")),
            pending.length === 0 ? Effect.void : Effect.fail(new CliFailure({ message: "migrations are pending: run petstore migrate" }))
          )
        )
      )
      : StoreAdmin.migrate(conf).pipe(
        Effect.flatMap((lines) => Console.log(lines.join("\n"))),
        Effect.mapError((error) => new CliFailure({ message: error.message }))
      ))).pipe(
    Command.withDescription(
      "Bring the configured store's schema up to date (the server also does it at start); safe to run while other instances serve. --check applies nothing."
    )
  )

export const importSqlite = Command.make(
  "import-sqlite",
  { file: Argument.File("SQLITE_FILE", { mustExist: true }).pipe(Argument.withDescription("The SQLite file to copy from.")) },
  ({ file }) =>
    Effect.flatMap(configuration, (conf) =>
      StoreAdmin.importSqlite(conf, file).pipe(
        Effect.flatMap((lines) => Console.log(lines.join("\n"))),
        Effect.mapError((error) => new CliFailure({ message: error.message }))
      ))
).pipe(
  Command.withDescription(
    "Copy everything a SQLite file holds (accounts, keys, pets with their ids, messages, limiter state) into the empty PostgreSQL database PETSTORE_DATABASE names."
  )
)

export const petIds = Command.make("pet-ids", {
  concurrent: Flag.Boolean("concurrent").pipe(
    Flag.withDescription(
      "Switch to concurrent pet ids (one-way; refused while an instance of a release before schema 11 serves the database)."
    ),
    Flag.withDefault(false)
  )
}, ({ concurrent }) =>
  Effect.flatMap(configuration, (conf) =>
    StoreAdmin.petIds(conf, concurrent).pipe(
      Effect.flatMap((line) => Console.log(line)),
      Effect.mapError((error) => new CliFailure({ message: error.message }))
    ))).pipe(
    Command.withDescription(
      "Say how the PostgreSQL database takes pet ids: from the counter row (one insert at a time across instances) or concurrently. --concurrent switches."
    )
  )
