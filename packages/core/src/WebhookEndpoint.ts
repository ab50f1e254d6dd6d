/**
 * An account's webhook endpoint: where its messages are POSTed, the secrets they are signed with (the
 * current one, and during a rotation the previous one until its grace runs out), and whether it is
 * disabled after failing without a break. At most one endpoint per account.
 *
 * @since 1.0.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { StoreUnavailable } from "./Errors.js"

/** A signing secret; `expiresAt` null for the current one, an instant (epoch ms) for a rotated-out one. */
export interface WebhookSecret {
  readonly secret: string
  readonly expiresAt: number | null
  /**
   * Set when the secret was read but cannot be used: why (it is sealed under another key than the
   * server's, or the server has none). `secret` is then the stored text, never written back changed.
   */
  readonly unreadable?: string | undefined
}

/** Times are epoch ms. */
export interface WebhookEndpoint {
  readonly accountId: string
  readonly url: string
  /** The current secret first. */
  readonly secrets: ReadonlyArray<WebhookSecret>
  readonly createdAt: number
  readonly updatedAt: number
  /** Since when every attempt has failed (null after a success). */
  readonly failingSince: number | null
  /** Set when the endpoint was disabled; cleared only by setting the endpoint again. */
  readonly disabledAt: number | null
  readonly disabledReason: string | null
}

/** At most this many secrets sign a delivery: the current one and the one in its grace. */
export const MAX_SIGNING_SECRETS = 2

/**
 * The secrets that sign at `now`: the current one and, during a rotation, the one in its grace; never
 * more than {@link MAX_SIGNING_SECRETS} (an endpoint stored with more, before rotations were bounded,
 * signs with the newest two).
 */
export const signingSecrets = (endpoint: WebhookEndpoint, now: number): ReadonlyArray<WebhookSecret> =>
  endpoint.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).slice(0, MAX_SIGNING_SECRETS)

/** Why the endpoint's deliveries cannot be signed now (a signing secret is unreadable), if they cannot. */
export const signingProblem = (endpoint: WebhookEndpoint, now: number): string | undefined =>
  signingSecrets(endpoint, now).find((s) => s.unreadable !== undefined)?.unreadable

/** The text of the {@link signingSecrets}. */
export const liveSecrets = (endpoint: WebhookEndpoint, now: number): ReadonlyArray<string> =>
  signingSecrets(endpoint, now).map((s) => s.secret)

/**
 * The endpoint after a rotation at `now`: `secret` is current, and the old current one keeps signing until
 * `now + graceMillis`. Every earlier secret is retired, whatever grace it had left, so at most two secrets
 * sign at any time; with a grace of 0 only the new secret signs.
 */
export const rotated = (endpoint: WebhookEndpoint, secret: string, now: number, graceMillis: number): WebhookEndpoint => {
  // An unreadable current secret cannot sign during a grace: it is retired at once.
  const current = endpoint.secrets.find((s) => s.expiresAt === null && s.unreadable === undefined)
  return {
    ...endpoint,
    updatedAt: now,
    secrets: current !== undefined && graceMillis > 0
      ? [{ secret, expiresAt: null }, { secret: current.secret, expiresAt: now + graceMillis }]
      : [{ secret, expiresAt: null }]
  }
}

/** What an attempt's outcome did to the endpoint's failing streak. */
export type StreakChange = "cleared" | "failing" | "disabled"

/** The port of the accounts' webhook endpoints, which each store implements. @category services */
export class WebhookEndpointStore extends Context.Service<
  WebhookEndpointStore,
  {
    readonly find: (accountId: string) => Effect.Effect<Option.Option<WebhookEndpoint>, StoreUnavailable>
    /**
     * Up to `limit` endpoints after the account `afterAccountId` (from the first when null), in the
     * store's order of account ids: paging on with the last one's id visits every endpoint once.
     */
    readonly page: (afterAccountId: string | null, limit: number) => Effect.Effect<ReadonlyArray<WebhookEndpoint>, StoreUnavailable>
    /** Creates or replaces the account's endpoint. */
    readonly put: (endpoint: WebhookEndpoint) => Effect.Effect<void, StoreUnavailable>
    /** Removes it; false when there was none. */
    readonly remove: (accountId: string) => Effect.Effect<boolean, StoreUnavailable>
    /** A delivery succeeded: the failing streak ends. */
    readonly recordSuccess: (accountId: string) => Effect.Effect<void, StoreUnavailable>
    /**
     * A delivery failed at `now`: the streak starts if none runs, and once it has lasted
     * `disableAfterMillis` the endpoint is disabled with `reason` ("disabled" answered only the once).
     */
    readonly recordFailure: (
      accountId: string,
      now: number,
      disableAfterMillis: number,
      reason: string
    ) => Effect.Effect<StreakChange, StoreUnavailable>
  }
>()("@petstore/core/WebhookEndpointStore") {
  static readonly layerMemory = Layer.sync(WebhookEndpointStore, () => makeMemory())
}

/** The streak rule every store applies: the endpoint after a failure at `now`, and what changed. */
export const afterFailure = (
  endpoint: WebhookEndpoint,
  now: number,
  disableAfterMillis: number,
  reason: string
): readonly [WebhookEndpoint, StreakChange] => {
  if (endpoint.disabledAt !== null) return [endpoint, "failing"]
  const failingSince = endpoint.failingSince ?? now
  return now - failingSince >= disableAfterMillis
    ? [{ ...endpoint, failingSince, disabledAt: now, disabledReason: reason }, "disabled"]
    : [{ ...endpoint, failingSince }, "failing"]
}

/** The webhook endpoints in process memory. @category constructors */
export const makeMemory = (): WebhookEndpointStore["Service"] => {
  const endpoints = new Map<string, WebhookEndpoint>()
  return {
    find: (accountId) => Effect.sync(() => Option.fromNullishOr(endpoints.get(accountId))),
    page: (afterAccountId, limit) =>
      Effect.sync(() =>
        [...endpoints.keys()]
          .filter((id) => afterAccountId === null || id > afterAccountId)
          .sort()
          .slice(0, limit)
          .map((id) => endpoints.get(id)!)
      ),
    put: (endpoint) => Effect.sync(() => void endpoints.set(endpoint.accountId, endpoint)),
    remove: (accountId) => Effect.sync(() => endpoints.delete(accountId)),
    recordSuccess: (accountId) =>
      Effect.sync(() => {
        const e = endpoints.get(accountId)
        if (e !== undefined && e.failingSince !== null) endpoints.set(accountId, { ...e, failingSince: null })
      }),
    recordFailure: (accountId, now, disableAfterMillis, reason) =>
      Effect.sync(() => {
        const e = endpoints.get(accountId)
        if (e === undefined) return "failing"
        const [next, change] = afterFailure(e, now, disableAfterMillis, reason)
        endpoints.set(accountId, next)
        return change
      })
  }
}
