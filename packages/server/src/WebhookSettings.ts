/**
 * The webhook delivery settings (`PETSTORE_WEBHOOK_*`), read by `Config`, and what they mean for the
 * message queue: its retry schedule, its workers, and a lease longer than any attempt.
 */
import { type MessageQueue, RetrySchedule, WebhookDelivery, WebhookSecretSealing } from "@petstore/core"
import * as Config from "effect/Config"
import * as ConfigRules from "./ConfigRules.js"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

export interface WebhookSettings {
  /** The delays before each retry (`PETSTORE_WEBHOOK_RETRY_DELAYS`, seconds; default Svix's). */
  readonly retryDelaysMillis: ReadonlyArray<number>
  /** Allow http and private or loopback addresses (`PETSTORE_WEBHOOK_ALLOW_PRIVATE`, default false). */
  readonly allowPrivate: boolean
  /** Each attempt's deadline (`PETSTORE_WEBHOOK_TIMEOUT_MS`, default 15000). */
  readonly timeoutMillis: number
  /** An endpoint failing without a break this long is disabled (`PETSTORE_WEBHOOK_DISABLE_AFTER`, seconds; default 5 days). */
  readonly disableAfterMillis: number
  /** Deliveries in progress at once in this process (`PETSTORE_WEBHOOK_WORKERS`, default 32). */
  readonly workers: number
  /** Of which at most this many to one endpoint (`PETSTORE_WEBHOOK_ENDPOINT_CONCURRENCY`, default 16). */
  readonly maxInFlightPerEndpoint: number
  /** Seals the signing secrets at rest (`PETSTORE_WEBHOOK_SECRET_KEY`, 32 bytes; default none: stored in clear). */
  readonly secretKey?: Redacted.Redacted<Uint8Array> | undefined
}

export const DEFAULTS: WebhookSettings = {
  retryDelaysMillis: RetrySchedule.DEFAULT_DELAYS_SECONDS.map((s) => s * 1000),
  allowPrivate: false,
  timeoutMillis: WebhookDelivery.DEFAULT_OPTIONS.attemptTimeoutMillis,
  disableAfterMillis: WebhookDelivery.DEFAULT_OPTIONS.disableAfterMillis,
  workers: 32,
  maxInFlightPerEndpoint: WebhookDelivery.DEFAULT_OPTIONS.maxInFlightPerEndpoint
}

/** The settings of a configuration (the defaults when it has none, as one built in code may). */
export const of = (config: { readonly webhooks?: WebhookSettings | undefined }): WebhookSettings => config.webhooks ?? DEFAULTS

/**
 * The queue's options for these settings. The lease is twice the attempt's deadline and two seconds
 * more (32 s by default): an attempt is cut a second before its lease ends, and a wait for the
 * endpoint's permit and the POST (a deadline each) end before that, with a second for the writes
 * recording them. A message whose instance died mid-delivery is delivered again once its lease runs out.
 */
export const queueOptions = (settings: WebhookSettings): Partial<MessageQueue.MessageQueueOptions> => ({
  retryDelaysMillis: settings.retryDelaysMillis,
  concurrency: settings.workers,
  // An endpoint's messages beyond its cap wait in the queue, not in a worker.
  maxInFlightPerAccount: settings.maxInFlightPerEndpoint,
  leaseMillis: 2 * settings.timeoutMillis + 2_000
})

const whole = (name: string, what: string, min: number, max: number, fallback: number) =>
  Config.Int(name).pipe(
    ConfigRules.validate({ message: `${name} must be a whole number of ${what} from ${min} to ${max}`, validation: (n) => n >= min && n <= max }),
    Config.withDefault(fallback)
  )

/** @category config */
export const config: Config.Config<WebhookSettings> = Config.all({
  retryDelaysMillis: Config.option(Config.String("PETSTORE_WEBHOOK_RETRY_DELAYS")).pipe(
    ConfigRules.mapOrFail((text) =>
      Option.match(text, {
        onNone: () => Result.succeed(DEFAULTS.retryDelaysMillis),
        onSome: (s) =>
          Option.match(RetrySchedule.parseDelays(s), {
            onNone: () =>
              Result.fail(ConfigRules.invalid(`PETSTORE_WEBHOOK_RETRY_DELAYS must be 1 to 20 delays in seconds, comma-separated (such as 5,300,1800), each at most 604800, got ${JSON.stringify(s)}`)),
            onSome: (delays) => Result.succeed(delays)
          })
      })
    )
  ),
  allowPrivate: Config.Boolean("PETSTORE_WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  timeoutMillis: whole("PETSTORE_WEBHOOK_TIMEOUT_MS", "milliseconds", 10, 120_000, DEFAULTS.timeoutMillis),
  disableAfterMillis: Config.map(
    whole("PETSTORE_WEBHOOK_DISABLE_AFTER", "seconds", 1, 90 * 86_400, DEFAULTS.disableAfterMillis / 1000),
    (s) => s * 1000
  ),
  workers: whole("PETSTORE_WEBHOOK_WORKERS", "workers", 1, 1_000, DEFAULTS.workers),
  maxInFlightPerEndpoint: whole("PETSTORE_WEBHOOK_ENDPOINT_CONCURRENCY", "requests", 1, 1_000, DEFAULTS.maxInFlightPerEndpoint),
  secretKey: Config.option(Config.Redacted("PETSTORE_WEBHOOK_SECRET_KEY")).pipe(
    ConfigRules.mapOrFail(Option.match({
      onNone: () => Result.succeed(undefined),
      onSome: (text) => {
        const key = WebhookSecretSealing.parseKey(Redacted.value(text))
        return key === undefined
          ? Result.fail(ConfigRules.invalid("PETSTORE_WEBHOOK_SECRET_KEY must be 32 bytes as 64 hex digits or base64 (such as the output of openssl rand -base64 32)"))
          : Result.succeed(Redacted.make<Uint8Array>(key))
      }
    }))
  )
})
