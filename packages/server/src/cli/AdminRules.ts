/**
 * The command line's flags checked with the admin API's rule for the same payload field, so both
 * ways of managing keys and webhooks accept the same values.
 */
import * as AdminApi from "@petstore/http-node/AdminApi"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { CliFailure } from "../CommandFailure.js"

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

// The group types its endpoints as one union, hence the cast.
const adminRule = <A>(
  endpoint: "createKey" | "rotateKey" | "rotateWebhookSecret" | "replayFailedMessages",
  field: string,
  flag: string
) => {
  const payload = AdminApi.AdminGroup.endpoints[endpoint].payload.values().next()
  if (payload.done) throw new Error(`the admin endpoint ${endpoint} declares no payload`)
  const decode = Schema.decodeUnknownResult(payload.value.schemas[0] as Schema.Codec<unknown, unknown, never, never>)
  return (value: A): Effect.Effect<A, CliFailure> =>
    Result.match(decode({ [field]: value }), {
      onFailure: (error) => {
        const issue = formatIssues(error.issue).issues[0]
        return Effect.fail(new CliFailure({ message: `${flag} ${issue?.message ?? "is invalid"}, got ${JSON.stringify(value)}` }))
      },
      onSuccess: () => Effect.succeed(value)
    })
}

export const checkExpiresAt = adminRule<string>("createKey", "expiresAt", "--expires-at")
export const checkGraceSeconds = adminRule<number>("rotateKey", "graceSeconds", "--grace-seconds")
export const checkSince = adminRule<string>("replayFailedMessages", "since", "--since")
export const checkSecretGrace = adminRule<number>("rotateWebhookSecret", "graceSeconds", "--grace-seconds")
