/**
 * What an account listing asks of a store, and the rules every store follows to answer it: newest
 * first (`createdAt` descending, then `id` descending), after a position, filtered by plan, status
 * and a text (`q`) that matches an id prefix or a part of the name, ASCII letters in either case.
 *
 * @since 2.0.0
 */
import * as Schema from "effect/Schema"
import { maxCodePoints, storableText } from "./Pet.js"
import type { Plan } from "./Plan.js"

/** Whether an account's keys are served (`active`) or refused with 403 (`suspended`). @category schemas */
export const AccountStatus = Schema.Literals(["active", "suspended"]).annotate({ identifier: "AccountStatus" })
/** An account's status, decoded. */
export type AccountStatus = typeof AccountStatus.Type

/** An account's display name: 1..200 characters (code points, as JSON Schema counts them). @category schemas */
export const AccountName = Schema.String.check(Schema.isMinLength(1), maxCodePoints(200), ...storableText).annotate({
  identifier: "AccountName",
  description: "A name for people, 1 to 200 characters."
})

/** The text of a listing's `q`: 1..200 characters (code points). @category schemas */
export const AccountSearch = Schema.String.check(Schema.isMinLength(1), maxCodePoints(200), ...storableText).annotate({
  identifier: "AccountSearch",
  description: "Only the accounts whose id starts with this text, or whose name contains it (ASCII letters in either case)."
})

/** Where a page of accounts ends: the next page starts after this account (newest-first order). */
export interface AccountPosition {
  readonly createdAt: number
  readonly id: string
}

/** The filters of an account listing (each one optional). */
export interface AccountFilter {
  readonly plan?: Plan | undefined
  readonly status?: AccountStatus | undefined
  /** An id prefix, or a part of the name (ASCII letters compared in either case). */
  readonly q?: string | undefined
}

/** One page's question to a store: the filters, where to start, and how many at most. */
export interface AccountQuery extends AccountFilter {
  readonly after?: AccountPosition | undefined
  readonly limit: number
}

/** What a listing's rules read of an account. */
export interface Listed {
  readonly id: string
  readonly name: string | null
  readonly plan: Plan
  readonly status: AccountStatus
  readonly createdAt: number
}

/** `text` with its ASCII capitals made small (other characters as they are), as every store folds names for `q`. */
export const foldAscii = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

/** Whether `account` passes every filter of `filter`. @category predicates */
export const matches = (account: Listed, filter: AccountFilter): boolean =>
  (filter.plan === undefined || account.plan === filter.plan) &&
  (filter.status === undefined || account.status === filter.status) &&
  (filter.q === undefined || account.id.startsWith(filter.q) ||
    (account.name !== null && foldAscii(account.name).includes(foldAscii(filter.q))))

/** Newest first: by `createdAt` descending, then by `id` descending (code-unit order). */
export const newestFirst = (a: AccountPosition, b: AccountPosition): number =>
  a.createdAt !== b.createdAt ? b.createdAt - a.createdAt : a.id < b.id ? 1 : a.id > b.id ? -1 : 0

/** Whether `account` comes after `position` in newest-first order. @category predicates */
export const isAfter = (account: AccountPosition, position: AccountPosition | undefined): boolean =>
  position === undefined || newestFirst(account, position) > 0
