/**
 * The records the checker's {@link Model} keeps: pets as the interface shows them, accounts with
 * their plan limits and keys, messages, and page listings in progress.
 *
 * @since 1.0.0
 */
import type * as BanBounds from "./BanBounds.js"
import type { TokenBounds } from "./TokenBounds.js"

/** An account's per-minute and per-day limits. */
export interface PlanLimits {
  readonly perMinute: number
  readonly perDay: number
}

/** A pet as the interface shows it. */
export interface PetRecord {
  readonly id: number
  readonly name: string
  readonly categoryId: number
  readonly status: string
}

/**
 * One API key the checker holds. `variable` names it in printed curl commands. Its ban standing
 * (BanPolicy) is kept as bounds: told to wait until, end of the wait's grace, strikes.
 */
export interface KeyModel extends BanBounds.BanStanding {
  readonly variable: string
  readonly secret: string
  readonly keyId: string | undefined
  readonly account: AccountModel
  /** Monotonic interval in which the key stops working (revoked or expired); undefined: active. */
  endsAt: { lo: number; hi: number } | undefined
  /** The id of the key that replaced it, once it was rotated (a key is rotated once). */
  rotatedTo: string | undefined
  /** Banned until (interval). */
  bannedUntil: { lo: number; hi: number } | undefined
  bans: number
}

/** An account: its limits, its token bucket (as bounds), its count for the day, its keys. */
export interface AccountModel {
  readonly name: string
  readonly id: string | undefined
  readonly limits: PlanLimits
  readonly bucket: TokenBounds
  /** Requests admitted today, when known. */
  dayUsed: number | undefined
  day: number
  readonly keys: Array<KeyModel>
}

/** A message the checker sent, with the last delivery status it saw. */
export interface MessageModel {
  readonly id: string
  readonly text: string
  readonly account: AccountModel
  lastStatus: string
}

/** A page listing in progress: where it stands and the link to its next page. */
export interface ChainModel {
  readonly key: KeyModel
  readonly limit: number
  readonly status: string | undefined
  afterId: number
  next: string | undefined
  pages: number
}

/** The UTC day of a wall-clock instant (ms): the period of an account's daily quota. */
export const utcDay = (wallMs: number) => Math.floor(wallMs / 86_400_000)

/** The outcome of the authentication step. */
export type AuthOutcome = "valid" | "invalid" | "either"

/** Whether `key` authenticates a request decided in [s, r]: surely, surely not, or either. */
export const keyAuth = (key: KeyModel, s: number, r: number): AuthOutcome => {
  if (key.endsAt === undefined || r < key.endsAt.lo) return "valid"
  if (s >= key.endsAt.hi) return "invalid"
  return "either"
}
