/**
 * What the checker assumes of the server's configuration (the product's defaults), and the window of
 * instants within which it lets the server have decided a request.
 *
 * @since 1.0.0
 */
import type { HttpExchange } from "./HttpExchange.js"

/** What the checker assumes of the server's configuration (the product's defaults). @category models */
export interface Expectations {
  /** Early requests after the grace while told to wait that are tolerated; one more bans the key (default 10). */
  readonly banThreshold: number
  /** Length of a first ban, in seconds (default 900). */
  readonly banSeconds: number
  /** After the first refusal of a wait, how long refused requests do not count toward a ban (default 250 ms). */
  readonly banGraceMs: number
  /** Failed authentications per client address per minute before 429 (default 100). */
  readonly failedAuthPerMinute: number
  /** How long a queued message may take to be delivered (default 5000 ms). */
  readonly messageDeadlineMs: number
  /** Slack for the instant the server decided, around when the request was sent and answered (ms). */
  readonly decisionSlackMs: number
  /** Tolerated difference between the server's wall clock and ours (s). */
  readonly clockSkewSeconds: number
  /** With several instances, how long after a revocation (or a rotation's grace) another may still accept the key (ms). */
  readonly revocationBoundMs: number
}

/** The product's defaults. */
export const DEFAULT_EXPECTATIONS: Expectations = {
  banThreshold: 10,
  banSeconds: 900,
  banGraceMs: 250,
  failedAuthPerMinute: 100,
  messageDeadlineMs: 5_000,
  decisionSlackMs: 3,
  clockSkewSeconds: 5,
  revocationBoundMs: 0
}

/** The instants `s`..`r` within which the server decided the exchange: when it was sent and answered, widened by the slack. */
export const decisionWindow = (expect: Expectations, x: HttpExchange) => ({
  s: x.sentAt - expect.decisionSlackMs,
  r: x.receivedAt + expect.decisionSlackMs
})
