/**
 * Usage at the end of a run: what the server reports for each account the checker created
 * (`GET /admin/v1/accounts/{id}/usage`, which counts nothing itself) must equal the answers the
 * checker saw with that account's keys, outcome by outcome. Checked when the server offers the
 * endpoint and there is an admin API; an account whose key was revoked or expired during the run is
 * left out (a refused old key's 401 or address 429 is not the account's, and which one the checker
 * saw around the end is uncertain). Counts arrive after the server's flush interval: the check waits
 * for them, up to `waitMs`; once an account's totals match, its `byKey` must split them key by key.
 */
import type { HttpExchange } from "./HttpExchange.js"
import type { AccountModel } from "./ModelRecords.js"
import { fail } from "./Violation.js"

/** The outcomes a usage bucket counts. */
export const OUTCOMES = ["total", "allowed", "rateLimited", "quotaExceeded", "banned", "clientErrors", "serverErrors"] as const
/** Requests by outcome. */
export type Tally = Record<typeof OUTCOMES[number], number>

/** No request yet. */
export const empty = (): Tally => ({ total: 0, allowed: 0, rateLimited: 0, quotaExceeded: 0, banned: 0, clientErrors: 0, serverErrors: 0 })

/** The sum of a usage answer's buckets. */
export const sumOfBuckets = (body: unknown): Tally => {
  const sum = empty()
  for (const bucket of (body as { buckets: ReadonlyArray<Tally> }).buckets) for (const k of OUTCOMES) sum[k] += bucket[k]
  return sum
}

/** Whether two tallies count the same requests, outcome by outcome. */
export const sameTally = (a: Tally, b: Tally): boolean => OUTCOMES.every((k) => a[k] === b[k])

/** What the checker saw for one account: by its id, or (a key given by hand) by its name. */
export interface SeenAccount {
  readonly name: string
  readonly account: AccountModel
  readonly seen: Tally
}

const REFUSALS: Readonly<Record<string, "rateLimited" | "quotaExceeded" | "banned">> = {
  rate_limited: "rateLimited",
  daily_quota_exceeded: "quotaExceeded",
  key_banned: "banned"
}

/** What the checker saw, per key, and which account each key is of. */
export class UsageTally {
  private readonly byToken = new Map<string, Tally>()
  private readonly accounts = new Map<string, { readonly account: AccountModel; readonly tokens: Set<string>; excluded: boolean }>()
  /** When the first request was sent (wall ms): the range read starts before it. */
  firstAt: number | undefined

  /** Counts one answer to a request of the public API with a bearer token (a 401 is no decision of an account). */
  see(exchange: HttpExchange): void {
    if (exchange.request.path.startsWith("/admin/")) return
    const authorization = exchange.request.headers["Authorization"] ?? exchange.request.headers["authorization"]
    // The scheme's name is case-insensitive (RFC 9110): `bearer` and `BEARER` carry the key too.
    const token = authorization === undefined ? undefined : /^bearer +(\S+) *$/i.exec(authorization)?.[1]
    if (token === undefined) return
    const status = exchange.response.status
    if (status === 401) return
    this.firstAt ??= exchange.wallSentAt
    const tally = this.byToken.get(token) ?? empty()
    this.byToken.set(token, tally)
    tally.total++
    if (status === 429) {
      let code = ""
      try {
        code = String((JSON.parse(exchange.response.text) as { code?: unknown }).code)
      } catch {
        // Counted as allowed below: not an account's refusal.
      }
      const refusal = REFUSALS[code]
      if (refusal !== undefined) {
        tally[refusal]++
        return
      }
    }
    tally.allowed++
    if (status >= 500) tally.serverErrors++
    else if (status >= 400) tally.clientErrors++
  }

  /** Notes the accounts of a sequence (before the next one replaces them): their keys, and whether one of them ended. */
  note(accounts: ReadonlyArray<AccountModel>): void {
    for (const account of accounts) {
      const name = account.id ?? account.name
      const entry = this.accounts.get(name) ?? { account, tokens: new Set<string>(), excluded: false }
      this.accounts.set(name, entry)
      for (const key of account.keys) {
        entry.tokens.add(key.secret)
        if (key.endsAt !== undefined) entry.excluded = true
      }
    }
  }

  /** The accounts to compare (none of whose keys ended), with what the checker saw for each so far. */
  expected(): ReadonlyArray<SeenAccount> {
    return [...this.accounts].filter(([, a]) => !a.excluded).map(([name, a]) => ({ name, account: a.account, seen: this.seenOf(name) }))
  }

  /** What the checker saw so far with one key. */
  seenWith(token: string): Tally {
    return this.byToken.get(token) ?? empty()
  }

  /** What the checker saw so far with the keys of an account (by id, or by name when it has none). */
  seenOf(name: string): Tally {
    const sum = empty()
    for (const token of this.accounts.get(name)?.tokens ?? []) {
      const t = this.byToken.get(token)
      if (t !== undefined) for (const k of OUTCOMES) sum[k] += t[k]
    }
    return sum
  }
}

/** How the check reads an account's usage: the answer's status and body. */
export type ReadUsage = (accountId: string, from: string, to: string) => Promise<{ readonly status: number; readonly body: unknown }>

/**
 * Compares, for at most `maxAccounts` accounts (the busiest), the usage the server reports with the
 * tally; answers why it was not checked, or `undefined` once it was (and matched).
 */
export const checkUsage = async (
  tally: UsageTally,
  read: ReadUsage,
  options: { readonly waitMs: number; readonly maxAccounts: number }
): Promise<string | undefined> => {
  const accounts = tally.expected().filter((a) => a.account.id !== undefined).sort((a, b) => b.seen.total - a.seen.total)
    .slice(0, options.maxAccounts)
  if (accounts.length === 0 || tally.firstAt === undefined) return "no account of the checker's sent a request"
  const from = new Date(Math.floor(tally.firstAt / 3_600_000) * 3_600_000).toISOString()
  const to = new Date(Date.now() + 3_600_000).toISOString()
  const deadline = Date.now() + options.waitMs
  for (const { account, seen } of accounts) {
    const accountId = account.id!
    for (;;) {
      const reply = await read(accountId, from, to)
      if (reply.status === 404) return "the server offers no usage (GET /admin/v1/accounts/{id}/usage answers 404)"
      if (reply.status !== 200) fail(`GET /admin/v1/accounts/${accountId}/usage → ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`)
      const reported = sumOfBuckets(reply.body)
      if (sameTally(reported, seen)) {
        compareByKey(tally, account, reply.body)
        break
      }
      // Counts only grow until they are flushed: more than was seen is wrong at once.
      if (reported.total > seen.total || Date.now() > deadline) {
        fail(
          `the usage of account ${accountId} is ${JSON.stringify(reported)}, but the answers its keys got were ${JSON.stringify(seen)}` +
            (reported.total > seen.total ? "" : ` (after waiting ${options.waitMs} ms for the counts to be written)`)
        )
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  return undefined
}

/**
 * Once an account's totals match, its `byKey` (the admin answer's) must split them as the checker
 * saw them, key by key (a key the server lists no buckets for sent nothing).
 */
const compareByKey = (tally: UsageTally, account: AccountModel, body: unknown): void => {
  const byKey = (body as { byKey?: ReadonlyArray<{ keyId: string; buckets: ReadonlyArray<Tally> }> }).byKey
  if (byKey === undefined) return
  for (const key of account.keys) {
    if (key.keyId === undefined) continue
    const listed = byKey.find((k) => k.keyId === key.keyId)
    const reported = listed === undefined ? empty() : sumOfBuckets(listed)
    const seen = tally.seenWith(key.secret)
    if (!sameTally(reported, seen)) {
      fail(`the usage of key ${key.keyId} of account ${account.id} (byKey) is ${JSON.stringify(reported)}, but the answers it got were ${JSON.stringify(seen)}`)
    }
  }
}
