/**
 * A published retry schedule: the delays before each retry, in order, with jitter; once spent, the
 * message is failed. `Retry-After` from the receiver is honoured within [delay, 2·delay], as Svix does,
 * so a receiver can slow retries down but neither speed them up nor stall them.
 *
 * @since 1.0.0
 */
import * as Option from "effect/Option"

/** Svix's schedule in seconds: immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 h in all). */
export const DEFAULT_DELAYS_SECONDS: ReadonlyArray<number> = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000]

/** Each delay is moved by up to this fraction either way, so retries of many messages spread out. */
export const JITTER = 0.2

/**
 * Parses `5,300,1800` (seconds, decimals allowed, comma-separated; at most 20 delays of at most 7 days)
 * into milliseconds, or says what is wrong.
 */
export const parseDelays = (text: string): Option.Option<ReadonlyArray<number>> => {
  const parts = text.split(",").map((s) => s.trim())
  if (parts.length === 0 || parts.length > 20) return Option.none()
  const delays: Array<number> = []
  for (const part of parts) {
    if (!/^\d+(\.\d+)?$/.test(part)) return Option.none()
    const seconds = Number(part)
    if (seconds > 7 * 24 * 3600) return Option.none()
    delays.push(Math.round(seconds * 1000))
  }
  return Option.some(delays)
}

/**
 * The wait before the next attempt after `attempts` attempts have failed, or none when the schedule is
 * spent (`attempts > delays.length`). `jitter` is uniform in [0, 1); `retryAfterMillis` is the
 * receiver's `Retry-After`, if it sent one.
 */
export const nextDelayMillis = (
  delaysMillis: ReadonlyArray<number>,
  attempts: number,
  jitter: number,
  retryAfterMillis?: number | undefined
): Option.Option<number> => {
  const base = delaysMillis[attempts - 1]
  if (base === undefined) return Option.none()
  if (retryAfterMillis !== undefined && Number.isFinite(retryAfterMillis)) {
    return Option.some(Math.round(Math.min(Math.max(retryAfterMillis, base), 2 * base)))
  }
  return Option.some(Math.max(0, Math.round(base * (1 - JITTER + 2 * JITTER * jitter))))
}

