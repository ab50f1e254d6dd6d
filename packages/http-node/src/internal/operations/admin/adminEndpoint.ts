/**
 * What every admin operation's declaration shares: the path prefix, the id syntax of its path
 * parameters, and its Error responses.
 */
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as Schema from "effect/Schema"
import { ErrorBody } from "../../../ErrorResponse.js"

/** The path prefix of the admin API. */
export const ADMIN_PREFIX = "/admin/v1"

/** An account's or a key's id in a path. */
export const Id = Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_]{1,64}$/, { message: "must be an id" }))

export const AccountIdPath = Schema.Struct({ accountId: Id })

export const MessageIdPath = Schema.Struct({ messageId: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_]{1,64}$/, { message: "must be a message id" })) })

export const error = (status: number) => ErrorBody.pipe(HttpApiSchema.status(status))

/** What every admin operation can answer besides its own errors. */
export const adminErrors = [error(401), error(503)] as const

/** An instant as the admin API writes it (ISO 8601), or `null`. */
export const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())
