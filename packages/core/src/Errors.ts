/**
 * Domain errors. Each carries what a caller needs to act on it.
 *
 * @since 1.0.0
 */
import * as Data from "effect/Data"

/** No pet has this id. @category errors */
export class PetNotFound extends Data.TaggedError("PetNotFound")<{ readonly id: number }> {}

/** No message has this id. @category errors */
export class MessageNotFound extends Data.TaggedError("MessageNotFound")<{ readonly id: string }> {}

/** A page cursor that was not issued by this service, was altered, or does not fit the query. */
export class InvalidCursor extends Data.TaggedError("InvalidCursor")<{ readonly reason: string }> {}

/** No account has this id. @category errors */
export class AccountNotFound extends Data.TaggedError("AccountNotFound")<{ readonly id: string }> {}

/** No key has this id. @category errors */
export class KeyNotFound extends Data.TaggedError("KeyNotFound")<{ readonly id: string }> {}

/**
 * The key was rotated already: it has a successor, `successorId`, and is not rotated twice (a second
 * rotation would leave two live replacements of one key). Rotate the successor instead.
 *
 * @category errors
 */
export class KeyAlreadyRotated extends Data.TaggedError("KeyAlreadyRotated")<{
  readonly id: string
  readonly successorId: string
}> {}

/** Plan limits that cannot be applied (enterprise without numbers, non-positive numbers ...). */
export class InvalidPlan extends Data.TaggedError("InvalidPlan")<{ readonly reason: string }> {}

/** A key's expiry that is not after the time it would be issued: it would never work. */
export class InvalidExpiry extends Data.TaggedError("InvalidExpiry")<{ readonly expiresAt: number; readonly now: number }> {}

/** The backing store could not be reached or refused the operation; nothing was half-written. */
export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{ readonly cause: unknown }> {}

/** The account has no webhook endpoint. */
export class WebhookNotFound extends Data.TaggedError("WebhookNotFound")<{ readonly accountId: string }> {}

/** A webhook endpoint URL that deliveries may not go to; `reason` names the rule. */
export class InvalidWebhookUrl extends Data.TaggedError("InvalidWebhookUrl")<{ readonly reason: string }> {}
