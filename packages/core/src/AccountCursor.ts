/**
 * The opaque cursor of the account listing: the last account of a page (its creation time and id)
 * and the filters it was issued for, signed by the `CursorSigner`, so that an altered cursor, or one
 * used with other filters, is refused (`InvalidCursor`) rather than moving the position.
 *
 * @since 2.0.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { AccountFilter, AccountPosition } from "./AccountListing.js"
import { InvalidCursor } from "./Errors.js"
import type { CursorSigner } from "./PageCursor.js"

const filterOf = (filter: AccountFilter) => [filter.plan ?? null, filter.status ?? null, filter.q ?? null]

const parsed = (text: string): Array<unknown> => {
  try {
    const value: unknown = JSON.parse(text)
    return Array.isArray(value) ? value : []
  } catch {
    return []
  }
}

/** The cursor of the page that follows `last` under `filter`. @category constructors */
export const encodeAccountCursor = (
  signer: CursorSigner["Service"],
  last: AccountPosition,
  filter: AccountFilter
): string => signer.seal(JSON.stringify(["accounts", last.createdAt, last.id, ...filterOf(filter)]))

/** The position a cursor of `encodeAccountCursor` names, when it was issued for `filter`. @category conversions */
export const decodeAccountCursor = (
  signer: CursorSigner["Service"],
  cursor: string,
  filter: AccountFilter
): Effect.Effect<AccountPosition, InvalidCursor> => {
  const opened = signer.open(cursor)
  if (Result.isFailure(opened)) return Effect.fail(opened.failure)
  const [kind, createdAt, id, ...issuedFor] = parsed(opened.success)
  if (kind !== "accounts" || typeof createdAt !== "number" || typeof id !== "string") {
    return Effect.fail(new InvalidCursor({ reason: "not a cursor of this listing" }))
  }
  return JSON.stringify(issuedFor) === JSON.stringify(filterOf(filter))
    ? Effect.succeed({ createdAt, id })
    : Effect.fail(new InvalidCursor({ reason: "cursor was issued for different filters" }))
}
