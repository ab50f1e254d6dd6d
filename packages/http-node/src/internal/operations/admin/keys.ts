/**
 * An issued API key as the admin API answers it (`createKey`, `rotateKey`): the full key, shown only
 * in that answer.
 */
import type { Accounts } from "@petstore/core"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { iso } from "./adminEndpoint.js"

/** A key as it is issued, shown once. */
export const IssuedKey = Schema.Struct({
  id: Schema.String,
  key: Schema.String.annotate({ description: "The full API key. It is shown only here, once." }),
  prefix: Schema.String,
  expiresAt: Schema.NullOr(Schema.String)
})

/** The answer's value for an issued key. */
export const issued = (key: Accounts.IssuedKey): typeof IssuedKey.Type => ({
  id: key.id,
  key: Redacted.value(key.key),
  prefix: key.prefix,
  expiresAt: iso(key.expiresAt)
})
