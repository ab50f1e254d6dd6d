/** `petstore keys create | list | revoke | rotate`: an account's API keys. */
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { CliFailure } from "../CommandFailure.js"
import { checkExpiresAt, checkGraceSeconds } from "./AdminRules.js"
import { accountId, keyId } from "./Arguments.js"
import type { CommandServices } from "./CommandServices.js"
import { alreadyRotated, noActiveKey, storeUnavailable, unknownAccount, unknownKey } from "./Failures.js"
import { iso, printIssued, table } from "./Output.js"

const createKey = ({ warnIfEmpty, withAccounts }: CommandServices) =>
  Command.make(
    "create",
    {
      account: accountId,
      expiresAt: Flag.String("expires-at").pipe(
        Flag.withDescription("When the key stops working, ISO 8601 (e.g. 2030-01-31T12:00:00Z); default never."),
        Flag.optional
      )
    },
    ({ account, expiresAt }) =>
      Effect.gen(function*() {
        const expires = Option.isNone(expiresAt) ? undefined : Date.parse(yield* checkExpiresAt(expiresAt.value))
        const key = yield* withAccounts((accounts) =>
          Effect.andThen(warnIfEmpty(accounts), accounts.issueKey(account, { expiresAt: expires })).pipe(
            Effect.catchTags({
              AccountNotFound: unknownAccount,
              InvalidExpiry: (e) =>
                new CliFailure({ message: `--expires-at ${new Date(e.expiresAt).toISOString()} is not in the future; a key must expire after it is issued` }),
              StoreUnavailable: storeUnavailable
            })
          )
        )
        yield* printIssued([["account", key.accountId], ["expires", key.expiresAt === null ? "never" : iso(key.expiresAt)]], key)
      })
  ).pipe(Command.withDescription("Issue a new key for an account; prints the key (shown only this once)."))

const listKeys = ({ warnIfEmpty, withAccounts }: CommandServices) =>
  Command.make("list", { account: accountId }, ({ account }) =>
    Effect.gen(function*() {
      const keys = yield* withAccounts((accounts) =>
        Effect.andThen(warnIfEmpty(accounts), accounts.listKeys(account)).pipe(
          Effect.catchTags({ AccountNotFound: unknownAccount, StoreUnavailable: storeUnavailable })
        )
      )
      yield* Console.log(table([
        ["ID", "PREFIX", "STATE", "CREATED", "EXPIRES", "REVOKED", "ROTATED TO"],
        ...keys.map((k) => [k.id, k.prefix, k.state, iso(k.createdAt), iso(k.expiresAt), iso(k.revokedAt), k.rotatedTo ?? "-"])
      ]))
    })).pipe(Command.withDescription("List an account's keys: metadata only, never the keys themselves."))

const revokeKey = ({ warnIfEmpty, withAccounts }: CommandServices) =>
  Command.make("revoke", { keyId }, ({ keyId }) =>
    Effect.gen(function*() {
      yield* withAccounts((accounts) =>
        Effect.andThen(warnIfEmpty(accounts), accounts.revoke(keyId)).pipe(
          Effect.catchTags({ KeyNotFound: unknownKey, StoreUnavailable: storeUnavailable })
        )
      )
      yield* Console.log(`revoked: ${keyId}`)
    })).pipe(Command.withDescription("Revoke a key; it is refused from now on."))

const rotateKey = ({ warnIfEmpty, withAccounts }: CommandServices) =>
  Command.make(
    "rotate",
    {
      keyId,
      graceSeconds: Flag.Int("grace-seconds").pipe(
        Flag.withDescription("How long the old key keeps working, in seconds (default 0, at most 30 days)."),
        Flag.withDefault(0)
      )
    },
    ({ graceSeconds, keyId }) =>
      Effect.gen(function*() {
        yield* checkGraceSeconds(graceSeconds)
        const key = yield* withAccounts((accounts) =>
          Effect.andThen(warnIfEmpty(accounts), accounts.rotate(keyId, { graceSeconds })).pipe(
            Effect.catchTags({ KeyNotFound: noActiveKey, KeyAlreadyRotated: alreadyRotated, StoreUnavailable: storeUnavailable })
          )
        )
        yield* printIssued([
          ["rotated", keyId],
          ["old key", graceSeconds === 0 ? "no longer accepted" : `accepted for at most ${graceSeconds} more seconds`],
          ["account", key.accountId]
        ], key)
      })
  ).pipe(Command.withDescription(
    "Replace a key with a new one; the old one keeps working for --grace-seconds. A key is rotated once: rotating it again is refused and names its successor."
  ))

export const keys = (services: CommandServices) =>
  Command.make("keys").pipe(
    Command.withDescription("Manage API keys."),
    Command.withSubcommands([createKey(services), listKeys(services), revokeKey(services), rotateKey(services)])
  )
