/**
 * Messages of the message-submission example.
 *
 * @since 1.0.0
 */
import * as Schema from "effect/Schema"
import { isWellFormed } from "./Pet.js"

/** The identifier of a message, assigned by the service. @category schemas */
export const MessageId = Schema.String.pipe(Schema.brand("MessageId")).annotate({
  identifier: "MessageId",
  description: "Identifier assigned by the service."
})
/** The identifier of a message, decoded. */
export type MessageId = typeof MessageId.Type

/**
 * Lifecycle: `queued → processing → delivered`, or `failed` once the retry budget is spent.
 * A message waiting for a retry is `queued` again.
 *
 * @category schemas
 */
export const MessageStatus = Schema.Literals(["queued", "processing", "delivered", "failed"]).annotate({
  identifier: "MessageStatus",
  description: "Where the message is: queued, processing, then delivered, or failed once its retries are spent."
})
export type MessageStatus = typeof MessageStatus.Type

/** A message to submit. @category schemas */
export const NewMessage = Schema.Struct({
  message: Schema.String.check(
    // No store keeps text with U+0000 the same way (PostgreSQL refuses it): refused for all of them.
    Schema.makeFilter((s: string) => !s.includes("\u0000") || "must not contain the NUL character (U+0000)", {
      toJsonSchema: () => [{}, true]
    }),
    // A lone surrogate (`"\ud800"` in JSON) is no character: stored as UTF-8 it would come back changed.
    Schema.makeFilter((s: string) => isWellFormed(s) || "must be well-formed Unicode (no lone surrogate)", {
      toJsonSchema: () => [{}, true]
    })
  ).annotate({ description: "The text to submit (no NUL character)." })
}).annotate({ identifier: "NewMessage", description: "A message to submit." })
/** A message to submit, decoded. */
export type NewMessage = typeof NewMessage.Type

const CREATED_AT_DESCRIPTION = "Creation time, ISO 8601 in UTC."
const DELIVERED_AT_DESCRIPTION = "When the message was delivered, ISO 8601 in UTC (once delivered)."

/** A submitted message and its current state. @category schemas */
export const Message = Schema.Struct({
  id: MessageId,
  message: Schema.String.annotate({ description: "The submitted text, echoed back." }),
  status: MessageStatus,
  createdAt: Schema.String.annotate({
    description: CREATED_AT_DESCRIPTION,
    format: "date-time"
  }),
  attempts: Schema.optionalKey(Schema.Int.annotate({ description: "Delivery attempts made so far (shown when the message is read)." })),
  deliveredAt: Schema.optionalKey(Schema.String.annotate({
      description: DELIVERED_AT_DESCRIPTION,
      format: "date-time"
    })),
  lastError: Schema.optionalKey(Schema.String.annotate({
    description: "Why the last attempt failed, once the message is failed: a short description that stays the same across versions, such as `endpoint answered 503` or `no answer within 15000 ms`."
  }))
}).annotate({ identifier: "Message", description: "A submitted message and its current state." })
/** A submitted message and its current state, decoded. */
export type Message = typeof Message.Type
