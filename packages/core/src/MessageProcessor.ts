/**
 * What processing a message means is up to the embedding application: it provides this service.
 * Processing is at-least-once, so implementations should be idempotent (the message id is stable).
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A processing attempt failed; the queue retries with backoff until the budget is spent. */
export class ProcessingFailed extends Data.TaggedError("ProcessingFailed")<{
  readonly reason: string
  /** The receiver asked to wait this long (`Retry-After`); a queue with a retry schedule honours it within bounds. */
  readonly retryAfterMillis?: number | undefined
  /** No retry can succeed (the endpoint is disabled or gone for good): the message is failed at once. */
  readonly final?: boolean | undefined
}> {}

/** A message as the processor gets it. */
export interface ProcessableMessage {
  readonly id: string
  readonly accountId: string
  readonly message: string
  /** 1 for the first attempt. */
  readonly attempt: number
  /** When the message was submitted (epoch ms). */
  readonly createdAt?: number | undefined
}

/** What is done with each submitted message: the embedding application's processor, webhook delivery, or a record. @category services */
export class MessageProcessor extends Context.Service<
  MessageProcessor,
  { readonly process: (message: ProcessableMessage) => Effect.Effect<void, ProcessingFailed> }
>()("@petstore/core/MessageProcessor") {
  /** The default: delivery is the record the queue keeps (status `delivered`); nothing else happens. */
  static readonly layerRecordOnly = Layer.succeed(MessageProcessor, { process: () => Effect.void })
}
