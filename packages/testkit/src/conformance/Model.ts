/**
 * The checker's model of a pet store server: pets, accounts with their keys, per-account token
 * buckets and daily quotas, per-key ban standings, the per-address bucket for failed
 * authentication, and messages. Time is real, so rate-limit state is kept as bounds
 * ({@link TokenBounds}); a response is a failure only when no state within the bounds explains it.
 *
 * The model outlives a single command sequence: pets and the address bucket are the server's, and
 * keys given on the command line keep their usage from one sequence to the next.
 *
 * The records it keeps are in `ModelRecords`; the checks of an authenticated request's rate-limit
 * step in `Admission`, of a failed authentication in `FailedAuth`, of the headers in `RateLimitHeaders`.
 *
 * @since 1.0.0
 */
import { type Admission, checkAdmission } from "./Admission.js"
import * as BanBounds from "./BanBounds.js"
import type { Expectations } from "./Expectations.js"
import { checkFailedAuth } from "./FailedAuth.js"
import type { HttpExchange } from "./HttpExchange.js"
import {
  type AccountModel,
  type AuthOutcome,
  type ChainModel,
  type KeyModel,
  type MessageModel,
  type PetRecord,
  type PlanLimits,
  keyAuth,
  utcDay
} from "./ModelRecords.js"
import { TokenBounds } from "./TokenBounds.js"
import { fail } from "./Violation.js"

// Moved to modules of their own; re-exported so `ConformanceModel` keeps its names.
export type { Admission } from "./Admission.js"
export { DEFAULT_EXPECTATIONS, type Expectations } from "./Expectations.js"
export type { AccountModel, ChainModel, KeyModel, MessageModel, PetRecord, PlanLimits } from "./ModelRecords.js"
export { ConformanceViolation, expectStatus, fail } from "./Violation.js"

export type { AuthOutcome } from "./ModelRecords.js"

/** What the checker expects of the server: accounts, keys, limits and data. @category models */
export class Model {
  readonly pets = new Map<number, PetRecord>()
  maxPetId = 0
  /** Pets the server acknowledged with 201, by id: each must be readable and listed until the end. */
  readonly acknowledged = new Map<number, PetRecord>()
  /** Ids of the pets the server held before the run (its inventory must be these and the acknowledged). */
  readonly preexisting = new Set<number>()
  /**
   * Pets created with an `Idempotency-Key`, by the pet's name (unique to its key): the id the 201
   * gave, or undefined while no answer told it (the inventory then allows at most one such pet).
   */
  readonly keyedPets = new Map<string, number | undefined>()
  /**
   * Per status filter, where the checker's read-your-writes listing (limit 10) stands: after the
   * last full page it read, with that page's next link, so each check reads about one page.
   */
  readonly listingTails = new Map<string, { afterId: number; next: string | undefined }>()
  readonly accounts: Array<AccountModel> = []
  readonly messages: Array<MessageModel> = []
  readonly chains: Array<ChainModel> = []
  readonly addressBucket: TokenBounds
  failedAuthSent = 0

  constructor(readonly expect: Expectations, at: number) {
    this.addressBucket = TokenBounds.unknown(expect.failedAuthPerMinute, at)
  }

  /** Keys that are usable now (not ended, not certainly banned). */
  liveKeys(at: number): ReadonlyArray<KeyModel> {
    return this.accounts.flatMap((a) => a.keys).filter((k) => this.authOf(k, at, at) === "valid")
  }

  addAccount(name: string, id: string | undefined, limits: PlanLimits, fresh: boolean, at: number, wallMs: number): AccountModel {
    const account = this.makeAccount(name, id, limits, fresh, at, wallMs)
    this.accounts.push(account)
    return account
  }

  /** An account the model tracks but commands never pick (the checker's own, for its reads). */
  makeAccount(name: string, id: string | undefined, limits: PlanLimits, fresh: boolean, at: number, wallMs: number): AccountModel {
    return {
      name,
      id,
      limits,
      bucket: fresh ? TokenBounds.full(limits.perMinute, at) : TokenBounds.unknown(limits.perMinute, at),
      dayUsed: fresh ? 0 : undefined,
      day: utcDay(wallMs),
      keys: []
    }
  }

  addKey(account: AccountModel, variable: string, secret: string, keyId: string | undefined): KeyModel {
    const key: KeyModel = {
      variable,
      secret,
      keyId,
      account,
      endsAt: undefined,
      rotatedTo: undefined,
      ...BanBounds.none(),
      bannedUntil: undefined,
      bans: 0
    }
    account.keys.push(key)
    return key
  }

  authOf(key: KeyModel, s: number, r: number): AuthOutcome {
    return keyAuth(key, s, r)
  }

  /** Whether the key may be told to wait at `at` (a request now could be a strike). */
  toldToWait(key: KeyModel, at: number): boolean {
    return at < key.waitUntil.hi
  }

  certainlyBanned(key: KeyModel, at: number): boolean {
    return key.bannedUntil !== undefined && at < key.bannedUntil.lo
  }

  /** A request with a missing or invalid key, checked against the address's bucket (`FailedAuth`). */
  failedAuth(x: HttpExchange, what: string): void {
    checkFailedAuth(this, x, what)
  }

  /** The rate-limit step of a request made with `key`, checked and recorded (`Admission`). */
  admission(key: KeyModel, x: HttpExchange, what: string): Admission | "unauthorized" {
    return checkAdmission(this, key, x, what)
  }

  /** Records a pet seen in a response, checking it against what was seen before. */
  observePet(pet: PetRecord, what: string): void {
    const known = this.pets.get(pet.id)
    if (known !== undefined && (known.name !== pet.name || known.categoryId !== pet.categoryId || known.status !== pet.status)) {
      fail(`${what}: pet ${pet.id} is ${JSON.stringify(pet)}, but it was ${JSON.stringify(known)}`)
    }
    if (known === undefined) this.pets.set(pet.id, pet)
    if (pet.id > this.maxPetId) this.maxPetId = pet.id
  }

  /** Known pets with `afterId < id ≤ upTo` matching the filter, by id. */
  knownPets(afterId: number, upTo: number, status: string | undefined): ReadonlyArray<PetRecord> {
    return [...this.pets.values()]
      .filter((p) => p.id > afterId && p.id <= upTo && (status === undefined || p.status === status))
      .sort((a, b) => a.id - b.id)
  }
}
