/**
 * The checker's model of a pet store server: pets, accounts with their keys, per-account token
 * buckets and daily quotas, per-key ban standings, the per-address bucket for failed
 * authentication, and messages. Time is real, so rate-limit state is kept as bounds
 * ({@link TokenBounds}); a response is a failure only when no state within the bounds explains it.
 *
 * The model outlives a single command sequence: pets and the address bucket are the server's, and
 * keys given on the command line keep their usage from one sequence to the next.
 *
 * @since 1.0.0
 */
import { errorCode } from "./AnswerRules.js"
import * as BanBounds from "./BanBounds.js"
import type { HttpExchange } from "./HttpExchange.js"
import { TokenBounds } from "./TokenBounds.js"

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

/** A failed conformance check. @category errors */
export class ConformanceViolation extends Error {
  override readonly name = "ConformanceViolation"
}

export const fail = (message: string): never => {
  throw new ConformanceViolation(message)
}

/** Fails unless the status is one of `expected`, quoting the start of the body. */
export const expectStatus = (what: string, actual: number, expected: ReadonlyArray<number>, body: string): void => {
  if (!expected.includes(actual)) fail(`${what}: expected ${expected.join(" or ")}, got ${actual}: ${body.slice(0, 300)}`)
}

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
  /** Banned until (interval). */
  bannedUntil: { lo: number; hi: number } | undefined
  bans: number
}

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

const utcDay = (wallMs: number) => Math.floor(wallMs / 86_400_000)

/** The outcome of the rate-limit step for an authenticated request. */
export type Admission = "allowed" | "rate_limited" | "daily_quota_exceeded" | "key_banned"

/** The outcome of the authentication step. */
export type AuthOutcome = "valid" | "invalid" | "either"

/** @category models */
export class Model {
  readonly pets = new Map<number, PetRecord>()
  maxPetId = 0
  /** Pets the server acknowledged with 201, by id: each must be readable and listed until the end. */
  readonly acknowledged = new Map<number, PetRecord>()
  /** Ids of the pets the server held before the run (its inventory must be these and the acknowledged). */
  readonly preexisting = new Set<number>()
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
      ...BanBounds.none(),
      bannedUntil: undefined,
      bans: 0
    }
    account.keys.push(key)
    return key
  }

  authOf(key: KeyModel, s: number, r: number): AuthOutcome {
    if (key.endsAt === undefined || r < key.endsAt.lo) return "valid"
    if (s >= key.endsAt.hi) return "invalid"
    return "either"
  }

  /** Whether the key may be told to wait at `at` (a request now could be a strike). */
  toldToWait(key: KeyModel, at: number): boolean {
    return at < key.waitUntil.hi
  }

  certainlyBanned(key: KeyModel, at: number): boolean {
    return key.bannedUntil !== undefined && at < key.bannedUntil.lo
  }

  // ---------------------------------------------------------------------------------------------
  // Rate-limit headers

  private slack(x: HttpExchange) {
    return { s: x.sentAt - this.expect.decisionSlackMs, r: x.receivedAt + this.expect.decisionSlackMs }
  }

  private intHeader(x: HttpExchange, name: string, what: string): number {
    const raw = x.response.headers[name.toLowerCase()]
    if (raw === undefined) return fail(`${what}: header ${name} is missing (every response carries the rate-limit headers)`)
    if (!/^\d+$/.test(raw.trim())) return fail(`${what}: header ${name} is ${JSON.stringify(raw)}, not a non-negative integer`)
    return Number(raw.trim())
  }

  /** `"name";k=v;k=v, …` of the IETF RateLimit and RateLimit-Policy fields. */
  private parseIetf(raw: string | undefined): Map<string, Record<string, number>> | undefined {
    if (raw === undefined) return undefined
    const out = new Map<string, Record<string, number>>()
    for (const item of raw.split(",")) {
      const [name, ...params] = item.trim().split(";")
      if (name === undefined || name === "") continue
      const values: Record<string, number> = {}
      for (const p of params) {
        const [k, v] = p.split("=")
        if (k !== undefined && v !== undefined) values[k.trim()] = Number(v.trim())
      }
      out.set(name.replace(/^"|"$/g, ""), values)
    }
    return out
  }

  /** The minute and day entries of the IETF fields, by their windows (60 s and 86 400 s). */
  private ietf(x: HttpExchange, what: string) {
    const policy = this.parseIetf(x.response.headers["ratelimit-policy"])
    const state = this.parseIetf(x.response.headers["ratelimit"])
    if (policy === undefined || state === undefined) {
      return fail(`${what}: the RateLimit-Policy and RateLimit fields are missing (they are on every response)`)
    }
    const byWindow = (w: number) => {
      for (const [name, p] of policy) {
        if (p.w === w) {
          const s = state.get(name)
          if (s === undefined || !Number.isInteger(s.r)) return fail(`${what}: RateLimit has no remaining (r) for ${name}`)
          return { quota: p.q!, remaining: s.r! }
        }
      }
      return undefined
    }
    return { minute: byWindow(60), day: byWindow(86_400) }
  }

  private checkReset(x: HttpExchange, what: string, maxAheadSeconds: number) {
    const reset = this.intHeader(x, "X-RateLimit-Reset", what)
    const sent = x.wallSentAt / 1000
    const skew = this.expect.clockSkewSeconds
    if (reset < Math.floor(sent) - skew || reset > sent + maxAheadSeconds + skew + 2) {
      fail(`${what}: X-RateLimit-Reset ${reset} is not within ${maxAheadSeconds} s of the request (epoch ${Math.floor(sent)})`)
    }
  }

  private retryAfter(x: HttpExchange, what: string): number {
    const ra = this.intHeader(x, "Retry-After", what)
    if (ra < 1) fail(`${what}: Retry-After ${ra} is below 1`)
    return ra
  }

  // ---------------------------------------------------------------------------------------------
  // Authentication that fails: the per-address bucket

  /**
   * A request with a missing or invalid key: 401 with `WWW-Authenticate: Bearer` while the address
   * has tokens, 429 when it has none.
   */
  failedAuth(x: HttpExchange, what: string): void {
    const { r, s } = this.slack(x)
    const eps = 1e-6
    const bucket = this.addressBucket
    const status = x.response.status
    this.failedAuthSent++
    if (status !== 401 && status !== 429) {
      fail(`${what}: expected 401 (missing or invalid key) but got ${status}: authentication was not enforced`)
    }
    const limit = this.intHeader(x, "X-RateLimit-Limit", what)
    if (limit !== bucket.capacity) {
      fail(`${what}: X-RateLimit-Limit ${limit}, expected the failed-authentication limit ${bucket.capacity} of this address`)
    }
    const remaining = this.intHeader(x, "X-RateLimit-Remaining", what)
    this.checkReset(x, what, 61)
    if (status === 401) {
      const challenge = x.response.headers["www-authenticate"]
      if (challenge === undefined || !/^bearer\b/i.test(challenge.trim())) {
        fail(`${what}: a 401 without \`WWW-Authenticate: Bearer\` (got ${JSON.stringify(challenge)})`)
      }
      if (bucket.mustRefuse(s, r, eps)) {
        fail(`${what}: 401 although this address's failed-authentication bucket must be empty (${bucket.describe(r)}): expected 429`)
      }
      bucket.take(s, r)
      if (!bucket.observeAfter(remaining, remaining + 1, s, r, eps)) {
        fail(`${what}: X-RateLimit-Remaining ${remaining} contradicts the address bucket ${bucket.describe(r)} after one failure`)
      }
      return
    }
    // 429: the address bucket is empty.
    if (bucket.calibrated && bucket.mustAdmit(s, r, eps)) {
      fail(`${what}: 429 although this address has failed-authentication tokens left (${bucket.describe(s)})`)
    }
    this.retryAfter(x, what)
    if (remaining !== 0) fail(`${what}: 429 with X-RateLimit-Remaining ${remaining}, expected 0`)
    bucket.refused(s)
    bucket.observeAfter(0, 1, s, r, eps)
  }

  // ---------------------------------------------------------------------------------------------
  // Admission of an authenticated request

  /**
   * Checks the rate-limit step of a request made with `key` and updates the model. Returns what the
   * server decided (a 401 when the key may have ended is handled as a failed authentication).
   */
  admission(key: KeyModel, x: HttpExchange, what: string): Admission | "unauthorized" {
    const { r, s } = this.slack(x)
    const status = x.response.status
    const auth = this.authOf(key, s, r)
    if (status === 401) {
      if (auth === "valid") fail(`${what}: 401 for key ${key.variable}, which is valid (a valid key was refused)`)
      this.failedAuth(x, what)
      return "unauthorized"
    }
    if (auth === "invalid") {
      if (status === 429 && x.response.text.includes("rate_limited")) {
        this.failedAuth(x, what)
        return "unauthorized"
      }
      fail(`${what}: key ${key.variable} was revoked or has expired, but the answer is ${status}, not 401 (auth ignored)`)
    }
    const account = key.account
    const eps = 1e-6
    const bucket = account.bucket
    const wallDay = utcDay(x.wallSentAt)
    if (wallDay !== account.day) {
      account.day = wallDay
      account.dayUsed = undefined
    }
    const perDay = account.limits.perDay
    const quotaOk: boolean | undefined = account.dayUsed === undefined ? undefined : account.dayUsed + 1 <= perDay
    const banned = key.bannedUntil !== undefined && s < key.bannedUntil.hi
    const certainlyBanned = key.bannedUntil !== undefined && r < key.bannedUntil.lo

    // The key's strikes if this request is refused.
    const strikes = BanBounds.strikesIfRefused(key, s, r)
    const threshold = this.expect.banThreshold

    let outcome: Admission
    if (status === 429) {
      const code = errorCode(x)
      if (code !== "rate_limited" && code !== "daily_quota_exceeded" && code !== "key_banned") {
        fail(`${what}: 429 with code ${JSON.stringify(code)}; expected rate_limited, daily_quota_exceeded or key_banned`)
      }
      outcome = code as Admission
    } else {
      outcome = "allowed"
    }

    const mustAdmitBucket = bucket.mustAdmit(s, r, eps)
    const mayAdmitBucket = !bucket.mustRefuse(s, r, eps)
    const explain = () =>
      `bucket ${bucket.describe(s)} tokens, day ${account.dayUsed ?? "?"}/${perDay} used, strikes ${strikes.min}..${strikes.max}`

    switch (outcome) {
      case "allowed": {
        if (certainlyBanned) fail(`${what}: key ${key.variable} is banned, but the request was admitted (${status})`)
        if (!mayAdmitBucket) {
          fail(`${what}: admitted (${status}) although account ${account.name}'s bucket must be empty (${explain()}): expected 429`)
        }
        if (quotaOk === false) fail(`${what}: admitted although the daily quota of ${perDay} is used up: expected 429`)
        bucket.take(s, r)
        if (account.dayUsed !== undefined) account.dayUsed++
        Object.assign(key, BanBounds.none())
        if (key.bannedUntil !== undefined) key.bannedUntil = undefined
        this.observeAllowedHeaders(account, x, what, s, r)
        return "allowed"
      }
      case "rate_limited": {
        if (certainlyBanned) fail(`${what}: key ${key.variable} is banned: expected code key_banned, got rate_limited`)
        if (mustAdmitBucket && quotaOk === true && !banned && strikes.min <= threshold) {
          fail(`${what}: 429 rate_limited although account ${account.name} must have a token (${explain()})`)
        }
        if (quotaOk === false) fail(`${what}: the daily quota is used up: expected code daily_quota_exceeded, got rate_limited`)
        if (strikes.min > threshold) {
          fail(`${what}: key ${key.variable} sent ${strikes.min} requests after the grace while told to wait: expected a ban (key_banned)`)
        }
        const ra = this.retryAfter(x, what)
        // Retry-After is the wait for one token, rounded up to whole seconds.
        const tokensMin = 1 - ra * 1000 * bucket.rate - 2 * bucket.rate
        const tokensMax = ra === 1 ? 1 : 1 - (ra - 1) * 1000 * bucket.rate + 2 * bucket.rate
        if (!bucket.observeAfter(Math.max(0, tokensMin), Math.min(1, tokensMax), s, r, eps)) {
          fail(`${what}: Retry-After ${ra} s does not fit account ${account.name}'s bucket (${explain()}, refill ${bucket.rate * 1000} tokens/s)`)
        }
        bucket.refused(s)
        BanBounds.refused(key, strikes, s, r, ra, this.expect.banGraceMs, threshold)
        this.observeRejectedHeaders(account, x, what, "minute")
        return outcome
      }
      case "daily_quota_exceeded": {
        if (certainlyBanned) fail(`${what}: key ${key.variable} is banned: expected code key_banned, got daily_quota_exceeded`)
        if (quotaOk === true) {
          fail(`${what}: daily_quota_exceeded after ${account.dayUsed} of ${perDay} requests today`)
        }
        if (strikes.min > threshold) {
          fail(`${what}: key ${key.variable} sent ${strikes.min} requests after the grace while told to wait: expected a ban (key_banned)`)
        }
        const ra = this.retryAfter(x, what)
        const toMidnight = (wallDay + 1) * 86_400 - x.wallSentAt / 1000
        if (ra < toMidnight - this.expect.clockSkewSeconds - 1) {
          fail(`${what}: daily quota exhausted, but Retry-After ${ra} s is before 00:00 UTC (${Math.ceil(toMidnight)} s away)`)
        }
        account.dayUsed = perDay
        bucket.refused(s)
        BanBounds.refused(key, strikes, s, r, ra, this.expect.banGraceMs, threshold)
        this.observeRejectedHeaders(account, x, what, "day")
        return outcome
      }
      case "key_banned": {
        if (!banned && strikes.max <= threshold) {
          fail(
            `${what}: key_banned, but key ${key.variable} sent at most ${strikes.max} early requests after the grace while told to wait (ban after more than ${threshold})`
          )
        }
        if (!banned && mustAdmitBucket && quotaOk === true) {
          fail(`${what}: key_banned although account ${account.name} had a token (a ban comes only from requests that are refused)`)
        }
        const ra = this.retryAfter(x, what)
        if (!banned) {
          key.bans++
          if (key.bans === 1 && Math.abs(ra - this.expect.banSeconds) > 1) {
            fail(`${what}: a first ban of ${ra} s; expected ${this.expect.banSeconds} s`)
          }
          key.bannedUntil = { lo: s + (ra - 1) * 1000, hi: r + ra * 1000 }
        } else if (key.bannedUntil !== undefined && (s + ra * 1000 < key.bannedUntil.lo - 1000 || r + (ra - 1) * 1000 > key.bannedUntil.hi + 1000)) {
          fail(`${what}: Retry-After ${ra} s does not match the rest of the ban`)
        }
        Object.assign(key, BanBounds.none())
        const remaining = this.intHeader(x, "X-RateLimit-Remaining", what)
        if (remaining !== 0) fail(`${what}: a banned key with X-RateLimit-Remaining ${remaining}, expected 0`)
        this.checkReset(x, what, 86_400 + 1)
        return outcome
      }
    }
  }

  /** After an admitted request: the headers tell the remaining counts; they must fit the model. */
  private observeAllowedHeaders(account: AccountModel, x: HttpExchange, what: string, s: number, r: number) {
    const eps = 1e-6
    const { perDay, perMinute } = account.limits
    const limit = this.intHeader(x, "X-RateLimit-Limit", what)
    const remaining = this.intHeader(x, "X-RateLimit-Remaining", what)
    const ietf = this.ietf(x, what)
    if (ietf.minute === undefined || ietf.day === undefined) {
      fail(`${what}: RateLimit-Policy must list a 60 s and an 86400 s limit, got ${x.response.headers["ratelimit-policy"]}`)
    }
    const minute = ietf.minute!
    const day = ietf.day!
    if (minute.quota !== perMinute || day.quota !== perDay) {
      fail(`${what}: RateLimit-Policy says ${minute.quota}/min and ${day.quota}/day; account ${account.name} has ${perMinute}/min and ${perDay}/day`)
    }
    if (limit !== perMinute && limit !== perDay) {
      fail(`${what}: X-RateLimit-Limit ${limit} is neither the per-minute (${perMinute}) nor the per-day (${perDay}) limit`)
    }
    if (remaining !== Math.min(minute.remaining, day.remaining)) {
      fail(`${what}: X-RateLimit-Remaining ${remaining} is not the fewest remaining (${minute.remaining}/min, ${day.remaining}/day)`)
    }
    const bindingQuota = minute.remaining < day.remaining ? perMinute : day.remaining < minute.remaining ? perDay : undefined
    if (bindingQuota !== undefined && limit !== bindingQuota) {
      fail(`${what}: X-RateLimit-Limit ${limit} is not the limit closest to exhaustion (${bindingQuota})`)
    }
    if (!account.bucket.observeAfter(minute.remaining, minute.remaining + 1, s, r, eps)) {
      fail(
        `${what}: ${minute.remaining} requests left this minute, but account ${account.name}'s bucket must hold ${
          account.bucket.describe(r)
        } tokens after this one (capacity ${perMinute}, refilled continuously)`
      )
    }
    if (account.dayUsed !== undefined && day.remaining !== Math.max(0, perDay - account.dayUsed)) {
      fail(`${what}: ${day.remaining} requests left today, but ${account.dayUsed} of ${perDay} were admitted`)
    }
    account.dayUsed = perDay - day.remaining
    this.checkReset(x, what, limit === perMinute && bindingQuota !== perDay ? 61 : 86_400 + 1)
  }

  private observeRejectedHeaders(account: AccountModel, x: HttpExchange, what: string, which: "minute" | "day") {
    const limit = this.intHeader(x, "X-RateLimit-Limit", what)
    const remaining = this.intHeader(x, "X-RateLimit-Remaining", what)
    const { perDay, perMinute } = account.limits
    if (limit !== perMinute && limit !== perDay) {
      fail(`${what}: X-RateLimit-Limit ${limit} is neither ${perMinute} nor ${perDay}`)
    }
    if (remaining !== 0) fail(`${what}: a 429 (${which}) with X-RateLimit-Remaining ${remaining}, expected 0`)
    this.ietf(x, what)
    this.checkReset(x, what, 86_400 + 1)
  }

  // ---------------------------------------------------------------------------------------------
  // Pets

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
