/**
 * The typed client of the public interface, derived from the same `HttpApi` value as the server.
 * It sends the API key as a bearer token and retries as the interface asks of clients: after a
 * 429 or 503 it waits at least `Retry-After`, and without that header it backs off exponentially
 * with full jitter, up to a number of attempts. Waiting goes through Effect's `Clock`, so tests
 * drive it with `TestClock`.
 *
 * ```ts
 * const program = Effect.gen(function*() {
 *   const client = yield* Client.PetstoreClient
 *   return yield* client.animals.listPets({ query: { status: "available" } })
 * })
 * program.pipe(
 *   Effect.provide(Client.layer({ baseUrl: "http://127.0.0.1:8080", apiKey: Redacted.make(key) })),
 *   Effect.provide(FetchHttpClient.layer) // or NodeHttpClient.layerUndici
 * )
 * ```
 *
 * @since 1.0.0
 */
import * as HttpApiClient from "effect/http-api/HttpApiClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientRequest from "effect/http/HttpClientRequest"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import type * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import { Api } from "./Api.js"

/** How the client retries throttled (429) and unavailable (503) answers. */
export interface RetryPolicy {
  /** Requests in all, the first included (1: never retry). */
  readonly maxAttempts: number
  /** Ceiling of the first backoff when there is no `Retry-After`; it doubles on each retry. */
  readonly baseDelay: Duration.Input
  /** The backoff ceiling never grows beyond this. */
  readonly maxDelay: Duration.Input
  /**
   * A `Retry-After` longer than this is not waited for: the answer is returned as it is (a ban or
   * an exhausted daily quota is better reported than slept through).
   */
  readonly maxRetryAfter: Duration.Input
}

/** What the typed client retries by default: 429 and 503, four attempts, backing off. @category constants */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelay: "500 millis",
  maxDelay: "30 seconds",
  maxRetryAfter: "2 minutes"
}

/** Statuses after which the server did nothing and asks the client to come back. */
const RETRYABLE = new Set([429, 503])

/** A retryable answer, carried through `Effect.retry` and handed back when retries end. */
class RetryableAnswer {
  readonly _tag = "RetryableAnswer"
  constructor(readonly response: HttpClientResponse.HttpClientResponse, readonly retryAfter: Option.Option<number>) {}
}

/** `Retry-After` in milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export const retryAfterMillis = (value: string | undefined, now: number): Option.Option<number> => {
  if (value === undefined) return Option.none()
  const text = value.trim()
  if (/^\d+$/.test(text)) return Option.some(Number(text) * 1000)
  const at = Date.parse(text)
  return Number.isFinite(at) ? Option.some(Math.max(0, at - now)) : Option.none()
}

/**
 * The wait before retry `n` (0 for the first retry): `Retry-After` when the server gave one,
 * otherwise a uniformly random time up to `min(maxDelay, baseDelay · 2^n)` ("full jitter").
 */
const delayBefore = (policy: RetryPolicy, retryAfter: Option.Option<number>, n: number) =>
  Option.match(retryAfter, {
    onSome: (millis) => Effect.succeed(Duration.millis(millis)),
    onNone: () => {
      const ceiling = Math.min(Duration.toMillis(policy.maxDelay), Duration.toMillis(policy.baseDelay) * 2 ** Math.min(n, 30))
      return Effect.map(Random.nextIntBetween(0, Math.floor(ceiling) + 1), Duration.millis)
    }
  })

/**
 * Retries 429 and 503 answers per `policy`; any other answer, and the last retryable one, is
 * returned unchanged, so the typed client still decodes it to the Error body.
 *
 * @category combinators
 */
export const withRetries = (policy: RetryPolicy) => <E, R>(client: HttpClient.HttpClient.With<E, R>): HttpClient.HttpClient.With<E, R> => {
  const maxRetryAfter = Duration.toMillis(policy.maxRetryAfter)
  const schedule = Schedule.recurs(Math.max(0, policy.maxAttempts - 1)).pipe(
    Schedule.modifyDelay(({ input: answer, output: n }) =>
      answer instanceof RetryableAnswer
        // The answer is being replaced by a retry: read its body so the connection can be reused.
        ? Effect.andThen(Effect.ignore(answer.response.arrayBuffer), delayBefore(policy, answer.retryAfter, n))
        : delayBefore(policy, Option.none(), n)
    )
  )
  const isWorthWaiting = (error: E | RetryableAnswer) =>
    error instanceof RetryableAnswer && Option.getOrElse(error.retryAfter, () => 0) <= maxRetryAfter
  return HttpClient.transform(client, (execute) =>
    execute.pipe(
      Effect.flatMap((response) =>
        RETRYABLE.has(response.status)
          ? Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.fail(new RetryableAnswer(response, retryAfterMillis(response.headers["retry-after"], now))))
          : Effect.succeed(response)
      ),
      Effect.retry({ schedule, while: isWorthWaiting }),
      Effect.catchIf((error): error is RetryableAnswer => error instanceof RetryableAnswer, (answer) => Effect.succeed(answer.response))
    ))
}

/** The typed client's base URL, key and retry policy. */
export interface ClientOptions {
  /** Where the server is, without the `/v1` prefix (the API definition carries it). */
  readonly baseUrl: string | URL
  readonly apiKey: Redacted.Redacted<string>
  readonly retry?: Partial<RetryPolicy> | undefined
}

/**
 * The typed client over the `HttpClient` in context.
 *
 * @category constructors
 */
export const make = (options: ClientOptions) =>
  HttpApiClient.make(Api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      client.pipe(
        HttpClient.mapRequest(HttpClientRequest.bearerToken(options.apiKey)),
        withRetries({ ...DEFAULT_RETRY_POLICY, ...options.retry })
      )
  })

/** The typed client of the pet store's interface. @category services */
export class PetstoreClient extends Context.Service<
  PetstoreClient,
  Effect.Success<ReturnType<typeof make>>
>()("@petstore/http-node/PetstoreClient") {}

/**
 * The client as a service; needs an `HttpClient` (`FetchHttpClient.layer` or
 * `NodeHttpClient.layerUndici`).
 *
 * @category layers
 */
export const layer = (options: ClientOptions): Layer.Layer<PetstoreClient, never, HttpClient.HttpClient> =>
  Layer.effect(PetstoreClient, make(options))
