/**
 * Usage at the end of a run as each account reads it itself: `GET /v1/usage` with one of the
 * account's live keys must report the answers the checker saw with that account's keys, outcome by
 * outcome. Needs no admin API. The read passes the limiter like any request, so it counts too: each
 * read is compared with what was seen before it was sent (its own answer is counted once it is
 * written), and a read refused 429 waits for its `Retry-After` (at most `maxRefusalWaitMs`; an
 * account refused for longer, a spent daily quota, is left out). Keys given by hand belong to
 * accounts with a past: their usage is read once before the run (`readBaselines`) and the check
 * compares what was added since, which holds when nothing else used those keys during the run or
 * in the flush interval before it.
 */
import type { AccountModel, KeyModel } from "./ModelRecords.js"
import type { Session } from "./Session.js"
import { OUTCOMES, empty, sameTally, sumOfBuckets, type Tally, type UsageTally } from "./UsageCheck.js"
import { fail } from "./Violation.js"

/** How the check reads an account's usage with one of its keys: the answer's status, body and `Retry-After` (ms). */
export type ReadOwnUsage = (
  key: KeyModel,
  from: string,
  to: string
) => Promise<{ readonly status: number; readonly body: unknown; readonly retryAfterMs: number | undefined }>

/** Where the reads start, and what each account (by name) had used there before the run. */
export interface Baselines {
  readonly from: string
  readonly counts: ReadonlyMap<string, Tally>
}

/** The check's options: how long to wait for the flush, how many accounts, how long a refused read may wait. */
export interface OwnUsageOptions {
  readonly waitMs: number
  readonly maxAccounts: number
  readonly maxRefusalWaitMs: number
  /** The pictures taken before the run (keys given by hand), or none (accounts the checker created). */
  readonly baselines?: Baselines | undefined
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
const HOUR = 3_600_000
const hourOf = (wallMs: number) => new Date(Math.floor(wallMs / HOUR) * HOUR).toISOString()
const untilNextHour = () => new Date(Date.now() + HOUR).toISOString()

const plus = (a: Tally, b: Tally | undefined): Tally => {
  if (b === undefined) return a
  const sum = empty()
  for (const k of OUTCOMES) sum[k] = a[k] + b[k]
  return sum
}

/** The key to read with: live, and not told to wait when one such is there. */
const readerOf = (account: AccountModel, at: number, toldToWait: (key: KeyModel, at: number) => boolean): KeyModel | undefined =>
  account.keys.find((k) => k.endsAt === undefined && !toldToWait(k, at)) ?? account.keys.find((k) => k.endsAt === undefined)

/** Why a reply says the server offers no usage, or `undefined`. */
const offersNone = (status: number): string | undefined =>
  status === 404 ? "the server offers no usage (GET /v1/usage answers 404)" : undefined

/**
 * Before the run, with keys given by hand: each account's usage so far (a read the run then counts
 * as seen). Answers the baselines, or why usage cannot be checked.
 */
export const readBaselines = async (
  tally: UsageTally,
  read: ReadOwnUsage,
  toldToWait: (key: KeyModel, at: number) => boolean,
  at: () => number
): Promise<Baselines | string> => {
  const from = hourOf(Date.now())
  const counts = new Map<string, Tally>()
  for (const { account, name } of tally.expected()) {
    const key = readerOf(account, at(), toldToWait)
    if (key === undefined) continue
    const reply = await read(key, from, untilNextHour())
    const none = offersNone(reply.status)
    if (none !== undefined) return none
    // A key refused now is left out: its account is not compared at the end.
    if (reply.status === 200) counts.set(name, sumOfBuckets(reply.body))
  }
  return { from, counts }
}

/**
 * Compares, for at most `maxAccounts` accounts (those the model expects to be readable first, then
 * the busiest), `GET /v1/usage` with what the checker saw; answers why it was not checked, or
 * `undefined` once it was (and matched) for at least one account.
 */
export const checkOwnUsage = async (
  tally: UsageTally,
  read: ReadOwnUsage,
  model: { readonly toldToWait: (key: KeyModel, at: number) => boolean; readonly at: () => number },
  options: OwnUsageOptions
): Promise<string | undefined> => {
  if (tally.firstAt === undefined) return "no account of the checker's sent a request"
  const baselines = options.baselines
  const at = model.at()
  const readable = (a: AccountModel) =>
    a.keys.some((k) => k.endsAt === undefined && !model.toldToWait(k, at)) && a.bucket.lower(at) >= 1 &&
    (a.dayUsed === undefined || a.dayUsed < a.limits.perDay)
  const accounts = tally.expected()
    .filter((a) => baselines === undefined || baselines.counts.has(a.name))
    .map((a) => ({ ...a, readable: readable(a.account) }))
    .sort((a, b) => Number(b.readable) - Number(a.readable) || b.seen.total - a.seen.total)
    .slice(0, options.maxAccounts)
  if (accounts.length === 0) return "no account of the checker's sent a request"
  const from = baselines?.from ?? hourOf(tally.firstAt)
  const deadline = Date.now() + options.waitMs
  let compared = 0
  const refused: Array<string> = []
  for (const { account, name } of accounts) {
    let pause = 100
    for (;;) {
      const key = readerOf(account, model.at(), model.toldToWait)
      if (key === undefined) break
      // Everything this account's keys got before this read: its own answer is not in what it reads.
      const expected = plus(tally.seenOf(name), baselines?.counts.get(name))
      const reply = await read(key, from, untilNextHour())
      const none = offersNone(reply.status)
      if (none !== undefined) return none
      if (reply.status === 429) {
        const wait = (reply.retryAfterMs ?? 1_000) + 25
        if (wait > options.maxRefusalWaitMs) {
          refused.push(name)
          break
        }
        await sleep(wait)
        continue
      }
      if (reply.status !== 200) fail(`GET /v1/usage with a key of account ${name} → ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`)
      const body = reply.body as { readonly accountId: string }
      if (account.id !== undefined && body.accountId !== account.id) {
        fail(`GET /v1/usage with a key of account ${account.id} answers the usage of account ${body.accountId}`)
      }
      const reported = sumOfBuckets(reply.body)
      if (sameTally(reported, expected)) {
        compared++
        break
      }
      // Counts only grow until they are written: more than was sent is wrong at once.
      if (reported.total > expected.total || Date.now() > deadline) {
        const before = baselines?.counts.get(name)
        fail(
          `GET /v1/usage says account ${name} used ${JSON.stringify(reported)}, but it used ${JSON.stringify(expected)} (` +
            (before === undefined ? "the answers its keys got" : `${JSON.stringify(before)} before the run, and the answers its keys got since`) +
            (reported.total > expected.total ? ")" : `; after waiting ${options.waitMs} ms for the counts to be written)`)
        )
      }
      await sleep(pause)
      pause = Math.min(pause * 2, 1_000)
    }
  }
  if (compared === 0) {
    return `every account read was refused for longer than ${options.maxRefusalWaitMs} ms (${refused.join(", ")})`
  }
  return undefined
}

/** Reads through the session (checked against the document, counted as seen like every answer). */
export const readThrough = (session: Session): ReadOwnUsage => async (key, from, to) => {
  const x = await session.send("usage", {
    method: "GET",
    path: `${session.publicPrefix}/usage?from=${from}&to=${to}`,
    headers: { Authorization: `Bearer ${key.secret}` }
  })
  const retryAfter = Number(x.response.headers["retry-after"])
  return {
    status: x.response.status,
    body: x.response.status === 200 ? session.json(x, "GET /v1/usage") : x.response.text,
    retryAfterMs: Number.isFinite(retryAfter) ? retryAfter * 1_000 : undefined
  }
}

/** Whether the document offers `GET /v1/usage`; if not, why usage is not checked through it. */
export const notInDocument = (session: Session): string | undefined =>
  session.checker.match("GET", `${session.publicPrefix}/usage`)._tag === "UnknownRoute"
    ? `the document has no GET ${session.publicPrefix}/usage`
    : undefined
