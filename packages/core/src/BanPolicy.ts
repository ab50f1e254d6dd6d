/**
 * Temporary bans for keys that keep sending while they are told to wait. A rejection tells the key
 * to wait until a precise instant. The first rejection of a wait opens a grace of `graceMillis`:
 * requests sent together, before any rejection could have been read, arrive within it and are not
 * held against the key. Each request that arrives after the grace and before the instant to wait
 * for is a strike; more than `threshold` strikes in one wait ban the key for `baseMillis`, doubling
 * for each further ban within `memoryMillis` of the end of the previous one, capped at `maxMillis`.
 * A client that honours Retry-After (which is rounded up) never arrives early, so it is never banned.
 *
 * @since 1.0.0
 */

export interface BanPolicyOptions {
  readonly threshold: number
  readonly baseMillis: number
  readonly maxMillis: number
  readonly memoryMillis: number
  /** After the first rejection of a wait, how long rejected requests are not strikes. */
  readonly graceMillis: number
}

/** The ban policy's defaults. */
export const DEFAULT_OPTIONS: BanPolicyOptions = {
  threshold: 10,
  baseMillis: 15 * 60_000,
  maxMillis: 24 * 3_600_000,
  memoryMillis: 24 * 3_600_000,
  graceMillis: 250
}

/** What the ban policy remembers of a key: its grace, its strikes and its bans. */
export interface KeyStanding {
  /** The key was told to wait until this instant (epoch ms); 0 when it was not. */
  readonly waitUntil: number
  /**
   * End of the current wait's grace (epoch ms): its first rejection's instant plus `graceMillis`.
   * 0 (the grace is over) when there is no wait, and in a standing read back from a store.
   */
  readonly graceUntil: number
  /** Requests that arrived after the grace and before `waitUntil` in the current wait. */
  readonly strikes: number
  /** Banned until this instant (epoch ms); 0 when never banned. */
  readonly bannedUntil: number
  /** Bans in a row, each starting within `memoryMillis` of the end of the one before. */
  readonly bans: number
  readonly lastBanAt: number
}

/** The standing of a key that has never been limited. */
export const CLEAN: KeyStanding = { waitUntil: 0, graceUntil: 0, strikes: 0, bannedUntil: 0, bans: 0, lastBanAt: 0 }

/** Whether the key is banned at `now`. */
export const isBanned = (standing: KeyStanding, now: number): boolean => standing.bannedUntil > now

/** An admitted request ends any wait. */
export const onAdmitted = (standing: KeyStanding): KeyStanding =>
  standing.waitUntil === 0 && standing.graceUntil === 0 && standing.strikes === 0
    ? standing
    : { ...standing, waitUntil: 0, graceUntil: 0, strikes: 0 }

/** The ban length for the `bans`-th ban in a row. */
export const banMillis = (bans: number, options: BanPolicyOptions): number =>
  Math.min(options.baseMillis * 2 ** Math.min(bans - 1, 30), options.maxMillis)

/**
 * A rejected request that was told to wait `waitMillis`. Returns the new standing and whether the
 * request earned a ban. A rejection at or after `waitUntil` starts a new wait and its grace; one
 * within the grace extends the wait without a strike.
 */
export const onRejected = (
  standing: KeyStanding,
  now: number,
  waitMillis: number,
  options: BanPolicyOptions
): { readonly standing: KeyStanding; readonly banned: boolean } => {
  const waiting = now < standing.waitUntil
  const graceUntil = waiting ? standing.graceUntil : now + options.graceMillis
  const strikes = !waiting ? 0 : now >= graceUntil ? standing.strikes + 1 : standing.strikes
  if (strikes > options.threshold) {
    // Remembered from the end of the last ban: time spent banned is not time "without bans".
    const bans = standing.bans > 0 && now - standing.bannedUntil < options.memoryMillis ? standing.bans + 1 : 1
    return {
      standing: { ...CLEAN, bannedUntil: now + banMillis(bans, options), bans, lastBanAt: now },
      banned: true
    }
  }
  return {
    standing: { ...standing, strikes, graceUntil, waitUntil: Math.max(standing.waitUntil, now + waitMillis) },
    banned: false
  }
}
