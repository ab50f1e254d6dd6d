/**
 * The log of delivery attempts: one row per POST to an endpoint (or per attempt that could not be
 * made), kept append-only so a message's history can be shown.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { StoreUnavailable } from "./Errors.js"

/** One attempt. Times are epoch ms. */
export interface WebhookAttempt {
  readonly messageId: string
  readonly accountId: string
  /** The message's attempt number (a replay starts a new series from 1). */
  readonly attempt: number
  readonly url: string
  readonly startedAt: number
  readonly durationMillis: number
  /** The answer's status code; null when none came (refused, unreachable, timed out). */
  readonly statusCode: number | null
  /** Why the attempt failed; null for a 2xx. */
  readonly error: string | null
}

/** The port of the webhook delivery attempts, which each store implements. @category services */
export class WebhookAttemptStore extends Context.Service<
  WebhookAttemptStore,
  {
    readonly record: (attempt: WebhookAttempt) => Effect.Effect<void, StoreUnavailable>
    /** A message's attempts, oldest first. */
    readonly list: (messageId: string) => Effect.Effect<ReadonlyArray<WebhookAttempt>, StoreUnavailable>
    /** The messages of the account with an attempt at or after `since`, each once, oldest first. */
    readonly messagesSince: (accountId: string, since: number) => Effect.Effect<ReadonlyArray<string>, StoreUnavailable>
  }
>()("@petstore/core/WebhookAttemptStore") {
  static readonly layerMemory = Layer.sync(WebhookAttemptStore, () => makeMemory())
}

/** The webhook attempts in process memory. @category constructors */
export const makeMemory = (): WebhookAttemptStore["Service"] => {
  const byMessage = new Map<string, Array<WebhookAttempt>>()
  return {
    record: (attempt) =>
      Effect.sync(() => {
        const list = byMessage.get(attempt.messageId)
        if (list === undefined) byMessage.set(attempt.messageId, [attempt])
        else list.push(attempt)
      }),
    list: (messageId) => Effect.sync(() => [...(byMessage.get(messageId) ?? [])]),
    messagesSince: (accountId, since) =>
      Effect.sync(() => {
        const found: Array<readonly [string, number]> = []
        for (const [id, list] of byMessage) {
          const first = list.find((a) => a.accountId === accountId && a.startedAt >= since)
          if (first !== undefined) found.push([id, first.startedAt])
        }
        return found.sort((a, b) => a[1] - b[1]).map(([id]) => id)
      })
  }
}
