/**
 * Delivery of messages to their account's webhook endpoint, as the queue's `MessageProcessor`: the
 * message is POSTed as a Standard Webhooks event, signed with every live secret; any 2xx within the
 * attempt's timeout is success, anything else a failure the queue retries on its schedule. Each
 * attempt is logged. An account without an endpoint has its messages delivered as before (recorded
 * only); a disabled endpoint fails them at once, kept for replay.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as EndpointPermits from "./internal/endpointPermits.js"
import { MessageProcessor, type ProcessableMessage, ProcessingFailed } from "./MessageProcessor.js"
import { WebhookAttemptStore } from "./WebhookAttempt.js"
import { liveSecrets, signingProblem, type WebhookEndpoint, WebhookEndpointStore } from "./WebhookEndpoint.js"
import { signatureHeader } from "./WebhookSignature.js"

/** The event type of a submitted message. */
export const EVENT_TYPE = "message.submitted"

/** One POST to make. */
export interface DeliveryRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The attempt's deadline, connection included: no whole answer within it is `noAnswerWithin(timeoutMillis)`. */
  readonly timeoutMillis: number
}

/**
 * What came of a POST: an answer (any status), or no answer and why: `error` in full (for the admin's
 * attempts), `kind` for the account's own view: no whole answer within the deadline (`timeout`), an
 * address the guard refused (`refused`), or no connection or exchange at all (`unreachable`).
 */
export type DeliveryOutcome =
  | { readonly _tag: "Answered"; readonly status: number; readonly retryAfterMillis?: number | undefined }
  | { readonly _tag: "NoAnswer"; readonly kind: "timeout" | "refused" | "unreachable"; readonly error: string }

/** The outcome of an attempt that got no whole answer within its deadline. */
export const noAnswerWithin = (timeoutMillis: number): DeliveryOutcome => ({
  _tag: "NoAnswer",
  kind: "timeout",
  error: `no answer within ${timeoutMillis} ms`
})

/**
 * What the account sees of a failed attempt (a message's `lastError`): a short description that stays
 * the same across versions and names nothing internal (hosts, resolvers, variables); the full text is
 * the attempt's `error`, for the admin.
 */
export const publicReason = {
  outcome: (outcome: DeliveryOutcome, timeoutMillis: number): string =>
    outcome._tag === "Answered"
      ? `endpoint answered ${outcome.status}`
      : outcome.kind === "timeout"
      ? `no answer within ${timeoutMillis} ms`
      : outcome.kind === "refused"
      ? "endpoint address refused"
      : "endpoint unreachable",
  disabled: "endpoint disabled",
  busy: "endpoint busy",
  unsigned: "delivery could not be signed",
  crashed: "delivery failed: internal error",
  storeUnavailable: "store unavailable"
} as const

/**
 * The HTTP client deliveries go through (the server's is undici with an SSRF guard). It keeps the
 * attempt's deadline itself, as HTTP clients keep theirs: a timer of the client's costs far less than
 * racing each attempt against one in another fiber. A sender that hangs anyway is cut by the queue's
 * lease.
 */
export class WebhookSender extends Context.Service<
  WebhookSender,
  {
    /**
     * POSTs the request and answers within `request.timeoutMillis` (`noAnswerWithin` when no whole
     * answer came by then); interrupting it aborts the request. Never fails: a failure is an outcome.
     */
    readonly send: (request: DeliveryRequest) => Effect.Effect<DeliveryOutcome>
  }
>()("@petstore/core/WebhookSender") {}

/** The deadlines and caps of webhook delivery. */
export interface WebhookDeliveryOptions {
  /** Each attempt's deadline, connection included (an unanswered attempt is a failure). */
  readonly attemptTimeoutMillis: number
  /** An endpoint failing every attempt for this long is disabled. */
  readonly disableAfterMillis: number
  /** POSTs in flight to one endpoint from this process at most, so a slow endpoint cannot take every worker. */
  readonly maxInFlightPerEndpoint: number
}

/** The defaults of webhook delivery. */
export const DEFAULT_OPTIONS: WebhookDeliveryOptions = {
  attemptTimeoutMillis: 15_000,
  disableAfterMillis: 5 * 24 * 3600 * 1000,
  maxInFlightPerEndpoint: 16
}

/** The body POSTed for a message: the same bytes on every attempt (the timestamp is the submission's). */
export const eventBody = (m: Pick<ProcessableMessage, "id" | "message" | "createdAt">): string => {
  const createdAt = new Date(m.createdAt ?? 0).toISOString()
  return JSON.stringify({ type: EVENT_TYPE, timestamp: createdAt, data: { id: m.id, message: m.message, createdAt } })
}

/**
 * The request of one attempt at `now` (epoch ms) with its deadline: headers per Standard Webhooks,
 * signed with the live secrets.
 */
export const deliveryRequest = (
  endpoint: WebhookEndpoint,
  m: ProcessableMessage,
  now: number,
  timeoutMillis: number
): DeliveryRequest => {
  const body = eventBody(m)
  const timestamp = Math.floor(now / 1000)
  return {
    url: endpoint.url,
    body,
    timeoutMillis,
    headers: {
      "content-type": "application/json",
      "user-agent": "petstore-webhooks/1",
      "webhook-id": m.id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureHeader(liveSecrets(endpoint, now), m.id, timestamp, body)
    }
  }
}

const isSuccess = (status: number) => status >= 200 && status <= 299

/** Reads every endpoint once, a page at a time; a store that cannot answer ends the reading. */
const readEveryEndpoint = (endpoints: WebhookEndpointStore["Service"]) =>
  Effect.gen(function*() {
    let after: string | null = null
    while (true) {
      const page: ReadonlyArray<WebhookEndpoint> = yield* endpoints.page(after, 500)
      if (page.length === 0) return
      after = page.at(-1)!.accountId
    }
  }).pipe(Effect.catchTag("StoreUnavailable", () => Effect.logDebug("webhook endpoints not read at start: store unavailable")))

/** The permits of each account's endpoint, made at its first delivery. */
const permitsByAccount = (maxInFlight: number) => {
  const permits = new Map<string, EndpointPermits.EndpointPermits>()
  return (accountId: string) => {
    let pool = permits.get(accountId)
    if (pool === undefined) {
      pool = EndpointPermits.make(maxInFlight)
      permits.set(accountId, pool)
    }
    return pool
  }
}

/** The attempt's exchange with the endpoint: the request sent and its answer (or none), timed. */
const exchangeWith = (sender: WebhookSender["Service"], options: WebhookDeliveryOptions) =>
(endpoint: WebhookEndpoint, m: ProcessableMessage) =>
  Effect.gen(function*() {
    const startedAt = yield* Clock.currentTimeMillis
    const outcome = yield* sender.send(deliveryRequest(endpoint, m, startedAt, options.attemptTimeoutMillis))
    const endedAt = yield* Clock.currentTimeMillis
    return { startedAt, outcome, endedAt }
  })

/** What an exchange leaves: the attempt's row, the endpoint's failing streak, and the message's failure if any. */
const settleWith = (
  endpoints: WebhookEndpointStore["Service"],
  attempts: WebhookAttemptStore["Service"],
  options: WebhookDeliveryOptions
) =>
(
  endpoint: WebhookEndpoint,
  m: ProcessableMessage,
  { endedAt, outcome, startedAt }: Effect.Success<ReturnType<ReturnType<typeof exchangeWith>>>,
  onRecorded: () => void
) =>
  Effect.gen(function*() {
    const error = outcome._tag === "NoAnswer"
      ? outcome.error
      : isSuccess(outcome.status)
      ? null
      : `answered ${outcome.status}`
    yield* attempts.record({
      messageId: m.id,
      accountId: m.accountId,
      attempt: m.attempt,
      url: endpoint.url,
      startedAt,
      durationMillis: endedAt - startedAt,
      statusCode: outcome._tag === "Answered" ? outcome.status : null,
      error
    })
    onRecorded()
    // A success ends a failing streak; without one there is nothing to write.
    if (error === null) return endpoint.failingSince === null ? undefined : yield* endpoints.recordSuccess(m.accountId)
    // 410 Gone: the receiver says the endpoint is gone for good (Standard Webhooks): disable it now.
    const disableAfter = outcome._tag === "Answered" && outcome.status === 410 ? 0 : options.disableAfterMillis
    const change = yield* endpoints.recordFailure(m.accountId, endedAt, disableAfter, `failing since a delivery ${error}`)
    return yield* Effect.fail(
      new ProcessingFailed({
        reason: publicReason.outcome(outcome, options.attemptTimeoutMillis),
        retryAfterMillis: outcome._tag === "Answered" ? outcome.retryAfterMillis : undefined,
        final: change === "disabled"
      })
    )
  })

/** Builds the webhook delivery processor over the endpoint and attempt stores. @category constructors */
export const make = (options: WebhookDeliveryOptions) =>
  Effect.gen(function*() {
    const endpoints = yield* WebhookEndpointStore
    const attempts = yield* WebhookAttemptStore
    const sender = yield* WebhookSender
    const permitOf = permitsByAccount(options.maxInFlightPerEndpoint)
    const storeFailure = new ProcessingFailed({ reason: publicReason.storeUnavailable })

    const exchange = exchangeWith(sender, options)
    const settle = settleWith(endpoints, attempts, options)

    /**
     * An attempt not made (or cut short), logged with `detail` so the message's history says why and an
     * account-wide replay finds it, and failed with the account's `reason`.
     */
    const notSent = (url: string, m: ProcessableMessage, detail: string, reason: string, final: boolean) =>
      Effect.gen(function*() {
        yield* attempts.record({
          messageId: m.id,
          accountId: m.accountId,
          attempt: m.attempt,
          url,
          startedAt: yield* Clock.currentTimeMillis,
          durationMillis: 0,
          statusCode: null,
          error: detail
        })
        return yield* Effect.fail(new ProcessingFailed({ reason, final }))
      })
    const busy = `not sent: ${options.maxInFlightPerEndpoint} deliveries to the endpoint stayed in flight for ${options.attemptTimeoutMillis} ms`

    // At start every endpoint is read once, in the background, so that one whose secret cannot be read
    // is reported now (the sealing store warns once per endpoint), not at its first delivery.
    yield* Effect.forkScoped(Effect.interruptible(readEveryEndpoint(endpoints)))

    /** One attempt at `m` to its account's endpoint. */
    const deliver = (m: ProcessableMessage, endpoint: WebhookEndpoint, onRecorded: () => void) =>
      Effect.gen(function*() {
        if (endpoint.disabledAt !== null) {
          // Logged too, so the message is found when the account's failures are replayed.
          return yield* notSent(endpoint.url, m, "the webhook endpoint is disabled: set it again, then replay", publicReason.disabled, true)
        }
        const unsigned = signingProblem(endpoint, yield* Clock.currentTimeMillis)
        if (unsigned !== undefined) return yield* notSent(endpoint.url, m, unsigned, publicReason.unsigned, false)
        // The permit bounds the requests in flight to the endpoint, so it is given back as soon as the
        // answer is in: the attempt's row and the endpoint's streak are written without holding it.
        // The queue takes no more of an account's messages than the cap, so one is nearly always free
        // and taken at once (no timer).
        const permit = permitOf(m.accountId)
        // When every permit is taken anyway the delivery waits its turn; permits go to the waiters in
        // the order they came. Each POST ends within its deadline, so a turn comes within one; a turn
        // that came after the attempt's deadline had passed gives the permit on and is a failed
        // attempt. Waiting and sending together thus stay within twice the deadline, inside the
        // queue's lease: no other worker takes the message over while this one still holds it. No
        // timer races the wait: the clock is read when the turn comes. (Between the permit taken
        // and its release made sure, nothing can interrupt.)
        const sent = yield* Effect.uninterruptibleMask((restore) =>
          Effect.gen(function*() {
            if (!permit.tryTake()) {
              const waitedFrom = yield* Clock.currentTimeMillis
              // Interruptible while it waits; once it answers, the permit is held here (uninterruptible).
              yield* permit.take
              if ((yield* Clock.currentTimeMillis) - waitedFrom > options.attemptTimeoutMillis) {
                permit.release()
                return Option.none()
              }
            }
            return Option.some(yield* restore(exchange(endpoint, m)).pipe(Effect.ensuring(Effect.sync(permit.release))))
          })
        )
        if (Option.isNone(sent)) return yield* notSent(endpoint.url, m, busy, publicReason.busy, false)
        yield* settle(endpoint, m, sent.value, onRecorded)
      })

    return MessageProcessor.of({
      process: (m) => {
        // The endpoint read, and whether this attempt's row is written, for the defect's handler.
        let endpoint: WebhookEndpoint | undefined
        let recorded = false
        return Effect.gen(function*() {
          const found = yield* endpoints.find(m.accountId)
          if (Option.isNone(found)) return
          endpoint = found.value
          yield* deliver(m, found.value, () => {
            recorded = true
          })
        }).pipe(
          // A defect (a bug, a throw of a library, a row that does not read) is a failed attempt like
          // any other: logged with its cause, kept in the message's history (once; with the endpoint's
          // URL when it was read), retried on the schedule.
          Effect.catchDefect((defect) =>
            Effect.logWarning("webhook delivery: defect", Cause.die(defect)).pipe(
              Effect.andThen(
                recorded
                  ? Effect.fail(new ProcessingFailed({ reason: publicReason.crashed }))
                  : notSent(endpoint?.url ?? "", m, `processor crashed: ${String(defect)}`, publicReason.crashed, false)
              )
            )
          ),
          Effect.catchTag("StoreUnavailable", () => Effect.fail(storeFailure))
        )
      }
    })
  })

/** Webhook delivery as the message processor. */
export const layer = (
  options: Partial<WebhookDeliveryOptions> = {}
): Layer.Layer<MessageProcessor, never, WebhookEndpointStore | WebhookAttemptStore | WebhookSender> =>
  Layer.effect(MessageProcessor, make({ ...DEFAULT_OPTIONS, ...options }))
