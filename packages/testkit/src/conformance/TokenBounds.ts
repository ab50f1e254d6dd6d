/**
 * What a client can know of a server-side token bucket: lower and upper bounds on its tokens as
 * functions of time. Both rise at the refill rate and stop at the capacity; each response (taken
 * when sent and when answered, since the server decided somewhere in between) narrows them.
 * The verdict is decided only where the bounds decide it: at least one token certainly there →
 * must admit; certainly below one → must refuse; in between, either answer is consistent.
 *
 * @since 1.0.0
 */

/** The bounds on the tokens a key holds, as the checker follows them. @category models */
export class TokenBounds {
  /** Tokens per millisecond. */
  readonly rate: number
  /** lower(t) = clamp(loI + rate·t), upper(t) = clamp(hiI + rate·t). */
  private loI: number
  private hiI: number
  /** Whether a response has ever told the remaining count. */
  calibrated = false

  constructor(readonly capacity: number, lower: number, upper: number, at: number) {
    this.rate = capacity / 60_000
    this.loI = lower - this.rate * at
    this.hiI = upper - this.rate * at
  }

  /** A bucket known to be full at `at` (a fresh account). */
  static full(capacity: number, at: number): TokenBounds {
    const b = new TokenBounds(capacity, capacity, capacity, at)
    b.calibrated = true
    return b
  }

  /** A bucket about which nothing is known yet. */
  static unknown(capacity: number, at: number): TokenBounds {
    return new TokenBounds(capacity, 0, capacity, at)
  }

  lower(t: number): number {
    return Math.max(0, Math.min(this.capacity, this.loI + this.rate * t))
  }

  upper(t: number): number {
    return Math.max(0, Math.min(this.capacity, this.hiI + this.rate * t))
  }

  /** A token is certainly there for a decision made in [s, r]. */
  mustAdmit(s: number, _r: number, epsilon: number): boolean {
    return this.lower(s) >= 1 + epsilon
  }

  /** No token can be there for a decision made in [s, r]. */
  mustRefuse(_s: number, r: number, epsilon: number): boolean {
    return this.upper(r) < 1 - epsilon
  }

  /**
   * One token taken by a decision at some d in [s, r]. Refill after d is rate·(t − d), so d cancels
   * out of both bounds except where the capacity caps them: uncertainty does not pile up over a burst.
   */
  take(s: number, r: number): void {
    const C = this.capacity
    this.hiI = Math.min(this.hiI, C - this.rate * s) - 1
    // An admitted request found at least one token.
    this.loI = Math.max(Math.min(this.loI, C - this.rate * r) - 1, -this.rate * r)
  }

  /** A refusal in [s, r]: fewer than one token then, none taken. */
  refused(s: number): void {
    this.hiI = Math.min(this.hiI, 1 - this.rate * s)
  }

  /**
   * The tokens left after a decision in [s, r] were at least `min` and less than `max`. Returns
   * false (and changes nothing) when that contradicts the bounds.
   */
  observeAfter(min: number, max: number, s: number, r: number, epsilon: number): boolean {
    // Some decision instant d in [s, r] must allow lower(d) ≤ tokens < upper(d).
    const lowest = this.loI + this.rate * s
    const highest = this.upper(r)
    if (max <= Math.max(0, Math.min(this.capacity, lowest)) - epsilon || min > highest + epsilon) return false
    this.loI = Math.max(this.loI, min - this.rate * r)
    this.hiI = Math.min(this.hiI, max - this.rate * s)
    if (this.hiI < this.loI) this.hiI = this.loI
    this.calibrated = true
    return true
  }

  describe(t: number): string {
    return `[${this.lower(t).toFixed(3)}, ${this.upper(t).toFixed(3)}] of ${this.capacity}`
  }
}
