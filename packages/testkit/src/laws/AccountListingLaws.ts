/**
 * Laws of an `AccountStore`'s listing and update, and of suspension through the `Accounts` service:
 * the listing is newest first, its pages partition the filtered accounts exactly (also while
 * accounts are added between pages), its filters are exact, an update round-trips, a suspended
 * account's keys verify as suspended and resuming restores them.
 *
 * @since 2.0.0
 */
import { fromSchema } from "../arbitraries/FromSchema.js"
import * as fc from "fast-check"
import { expect } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { AccountListing, Accounts, AccountStore, ApiKey, Plan, SecureRandom } from "@petstore/core"
import type { LawSuiteOptions } from "./LawSuite.js"
import { base62, numRuns, plain, property, text } from "./internal/support.js"

type Store = AccountStore.AccountStore["Service"]
type Account = AccountStore.Account

const isName = Schema.is(AccountListing.AccountName)
const name = fc.oneof(text({ minLength: 1, maxLength: 12 }), fromSchema(AccountListing.AccountName)).filter(isName)
const status = fc.constantFrom<AccountListing.AccountStatus>("active", "suspended")
// Few distinct instants, so that accounts created in the same millisecond (ordered by id) are common.
const createdAt = fc.integer({ min: 0, max: 5 }).map((n) => 1_800_000_000_000 + n)

const accountOf = (id: string): fc.Arbitrary<Account> =>
  fc.record({
    id: fc.constant(id),
    name: fc.option(name, { nil: null }),
    plan: fromSchema(Plan.Plan),
    limits: fromSchema(Plan.PlanLimits),
    status,
    createdAt
  })

/** Accounts with distinct ids. */
const accounts = (min: number, max: number, tag: string): fc.Arbitrary<ReadonlyArray<Account>> =>
  fc.uniqueArray(base62(6), { minLength: min, maxLength: max }).chain((ids) => fc.tuple(...ids.map((id) => accountOf(`acc_${tag}${id}`))))

const keyOf = (account: Account): AccountStore.KeyRecord => ({
  id: `key_${account.id}`,
  accountId: account.id,
  hash: ApiKey.hash(`key_${account.id}`),
  prefix: "psk_test_abcd",
  createdAt: account.createdAt,
  expiresAt: null,
  revokedAt: null,
  rotatedTo: null
})

/** A filter: any of plan, status and a text taken from an id, a name or anywhere. */
const filterFor = (all: ReadonlyArray<Account>): fc.Arbitrary<AccountListing.AccountFilter> => {
  const texts = all.flatMap((a) => [a.id.slice(0, 6), ...(a.name === null ? [] : [a.name.slice(1, 4).toUpperCase(), a.name])])
    .filter((t) => t.length > 0 && Schema.is(AccountListing.AccountSearch)(t))
  return fc.record({
    plan: fc.option(fromSchema(Plan.Plan), { nil: undefined }),
    status: fc.option(status, { nil: undefined }),
    q: fc.option(texts.length === 0 ? name : fc.oneof(fc.constantFrom(...texts), name), { nil: undefined })
  })
}

const expected = (all: ReadonlyArray<Account>, filter: AccountListing.AccountFilter) =>
  all.filter((a) => AccountListing.matches(a, filter)).sort(AccountListing.newestFirst)

/** Every page of the listing from the start, `between` run after each page. */
const pageThrough = (s: Store, filter: AccountListing.AccountFilter, limit: number, between: (page: number) => Effect.Effect<void, unknown>) =>
  Effect.gen(function*() {
    const seen: Array<Account> = []
    let after: AccountListing.AccountPosition | undefined
    for (let page = 0; page < 200; page++) {
      const found = (yield* s.listAccounts({ ...filter, after, limit })).map(plain)
      expect(found.length).toBeLessThanOrEqual(limit)
      seen.push(...found)
      if (found.length < limit) return seen
      after = found.at(-1)!
      yield* between(page)
    }
    return seen
  })

/**
 * Registers the listing, update and suspension laws for the store `layer` provides (a fresh, empty
 * store each time it is built).
 *
 * @category law suites
 * @since 2.0.0
 */
export const accountListingLaws = <E>(layer: Layer.Layer<AccountStore.AccountStore, E>, options?: LawSuiteOptions): void => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) => Effect.provide(Effect.flatMap(AccountStore.AccountStore, f), layer)
  const runs = numRuns(options, 50)
  const store = (s: Store, all: ReadonlyArray<Account>) => Effect.forEach(all, (a) => s.insertAccount(a, keyOf(a)), { discard: true })
  const withFilter = accounts(0, 12, "").chain((all) => fc.tuple(fc.constant(all), filterFor(all), fc.integer({ min: 1, max: 5 })))

  property("listAccounts: newest first (createdAt, then id, descending), pages partition exactly the accounts the filters match", [withFilter], ([[all, filter, limit]]) =>
    withStore((s) =>
      Effect.gen(function*() {
        yield* store(s, all)
        const seen = yield* pageThrough(s, filter, limit, () => Effect.void)
        expect(seen).toStrictEqual(expected(all, filter))
      })), runs)

  property(
    "listAccounts while accounts are added between pages: every account that was there at the start is listed once, none twice",
    [withFilter, accounts(1, 6, "new")],
    ([[all, filter, limit], added]) =>
      withStore((s) =>
        Effect.gen(function*() {
          yield* store(s, all)
          const seen = yield* pageThrough(s, filter, limit, (page) => store(s, page === 0 ? added : []))
          const ids = seen.map((a) => a.id)
          expect(new Set(ids).size).toBe(ids.length)
          for (const a of expected(all, filter)) expect(ids).toContain(a.id)
          for (const a of seen) expect(AccountListing.matches(a, filter)).toBe(true)
          expect([...seen].sort(AccountListing.newestFirst)).toStrictEqual(seen)
        })),
    runs
  )

  const change: fc.Arbitrary<AccountStore.AccountChange> = fc.record({
    name: fc.option(fc.option(name, { nil: null }), { nil: undefined }),
    plan: fc.option(fc.record({ plan: fromSchema(Plan.Plan), limits: fromSchema(Plan.PlanLimits) }), { nil: undefined }),
    status: fc.option(status, { nil: undefined })
  })

  property("updateAccount applies exactly the change (a field left out stays), findAccount and listAccounts show it; an unknown id is none", [accounts(1, 4, ""), change], ([all, c]) =>
    withStore((s) =>
      Effect.gen(function*() {
        yield* store(s, all)
        const [target, ...others] = all
        const want = AccountStore.applyChange(target!, c)
        // Read once first, so that a cached account has to be replaced.
        yield* s.findAccount(target!.id)
        expect(Option.map(yield* s.updateAccount(target!.id, c), plain)).toStrictEqual(Option.some(want))
        expect(Option.map(yield* s.findAccount(target!.id), plain)).toStrictEqual(Option.some(want))
        const listed = (yield* s.listAccounts({ limit: 100 })).map(plain)
        expect(listed).toStrictEqual([want, ...others].sort(AccountListing.newestFirst))
        expect(Option.isNone(yield* s.updateAccount("acc_unknown", c))).toBe(true)
      })), runs)

  const withAccounts = <A, E2>(f: (accounts: Accounts.Accounts["Service"]) => Effect.Effect<A, E2>) =>
    Effect.provide(
      Effect.flatMap(Accounts.Accounts, f),
      Accounts.Accounts.layer({ environment: "staging" }).pipe(Layer.provide(layer), Layer.provide(SecureRandom.SecureRandom.Live))
    )

  property(
    "a suspended account's keys verify as suspended, with its limits; resuming restores them; a plan change gives the new limits",
    [fc.array(fc.constantFrom<"suspend" | "resume" | "pro" | "free">("suspend", "resume", "pro", "free"), { maxLength: 6 })],
    ([steps]) =>
      withAccounts((accounts) =>
        Effect.gen(function*() {
          const { account, key } = yield* accounts.create({ plan: "business" })
          const token = Redacted.value(key.key)
          let state = { suspended: false, limits: account.limits }
          for (const step of steps) {
            const updated = yield* accounts.update(account.id, step === "suspend" || step === "resume"
              ? { status: step === "suspend" ? "suspended" : "active" }
              : { plan: step })
            state = { suspended: updated.status === "suspended", limits: updated.limits }
            if (step === "pro" || step === "free") expect(updated.limits).toStrictEqual(Plan.STANDARD_LIMITS[step])
            const principal = yield* accounts.verify(token)
            expect(Option.map(principal, (p) => ({ suspended: p.suspended, limits: p.limits }))).toStrictEqual(Option.some(state))
          }
        })),
    numRuns(options, 20)
  )
}
