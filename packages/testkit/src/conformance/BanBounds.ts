/**
 * The checker's bounds on a key's ban standing (the core's `BanPolicy`). The server decides a
 * request at some instant between when it was sent and when it was answered, so the instant to wait
 * for, the end of the wait's grace and the strikes are intervals; a refused request counts as a
 * strike for certain only when it certainly arrived after the grace and before the wait's end, and
 * certainly not when it arrived before the grace ended or after the wait.
 */

/** An interval of instants (monotonic ms). */
export interface Instants {
  lo: number
  hi: number
}

/** An interval of counts. */
export interface Count {
  readonly min: number
  readonly max: number
}

/** What the checker knows of a key's standing. @category models */
export interface BanStanding {
  /** Told to wait until (0..0: not told). */
  waitUntil: Instants
  /** End of the current wait's grace, which follows its first refusal. */
  graceUntil: Instants
  /** Requests that counted toward a ban in the current wait. */
  strikes: Count
}

/** Not told to wait (a fresh key, or after an admitted request or a ban). */
export const none = (): BanStanding => ({
  waitUntil: { lo: 0, hi: 0 },
  graceUntil: { lo: 0, hi: 0 },
  strikes: { min: 0, max: 0 }
})

/** Whether a request decided within [s, r] falls in the current wait: true, false, or either. */
const inWait = (standing: BanStanding, s: number, r: number): boolean | undefined =>
  r < standing.waitUntil.lo ? true : s >= standing.waitUntil.hi ? false : undefined

/**
 * The strikes of the key after a request decided within [s, r] is refused (before any ban): none
 * when it starts a new wait, the same within the grace, one more after it.
 */
export const strikesIfRefused = (standing: BanStanding, s: number, r: number): Count => {
  const waiting = inWait(standing, s, r)
  if (waiting === false) return { min: 0, max: 0 }
  const afterGrace = s >= standing.graceUntil.hi ? true : r < standing.graceUntil.lo ? false : undefined
  const { max, min } = standing.strikes
  const possible: Array<Count> = []
  if (waiting === undefined) possible.push({ min: 0, max: 0 })
  if (afterGrace !== true) possible.push({ min, max })
  if (afterGrace !== false) possible.push({ min: min + 1, max: max + 1 })
  return { min: Math.min(...possible.map((c) => c.min)), max: Math.max(...possible.map((c) => c.max)) }
}

/**
 * The standing after a refusal decided within [s, r] that told the key to wait `ra` seconds (rounded
 * up, so the wait ends within ((ra − 1) s, ra s] of the decision), with `strikes` from
 * `strikesIfRefused` capped at `threshold`.
 */
export const refused = (
  standing: BanStanding,
  strikes: Count,
  s: number,
  r: number,
  ra: number,
  graceMs: number,
  threshold: number
): void => {
  const waiting = inWait(standing, s, r)
  // A refusal that starts a new wait starts its grace.
  if (waiting === false) standing.graceUntil = { lo: s + graceMs, hi: r + graceMs }
  else if (waiting === undefined) {
    standing.graceUntil = { lo: Math.min(standing.graceUntil.lo, s + graceMs), hi: Math.max(standing.graceUntil.hi, r + graceMs) }
  }
  standing.strikes = { min: Math.min(strikes.min, threshold), max: Math.min(strikes.max, threshold) }
  const lo = s + (ra - 1) * 1000
  const hi = r + ra * 1000
  standing.waitUntil = { lo: Math.max(standing.waitUntil.lo, lo), hi: Math.max(standing.waitUntil.hi, hi) }
}
