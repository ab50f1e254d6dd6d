/**
 * `GET /admin/v1/accounts/{accountId}/usage`: an account's usage per hour or day, zero-filled, with
 * today's quota and the busiest keys (`404` when the server counts no usage).
 */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Accounts, DailyQuota, Usage, UsageRange } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { UsageNotCounted } from "../../../ErrorResponse.js"
import * as UsageReport from "../../usageReport.js"
import * as Operation from "../operation.js"
import { AccountIdPath, adminErrors, error } from "./adminEndpoint.js"

export const endpoint = HttpApiEndpoint.get("accountUsage", "/accounts/:accountId/usage", {
  params: AccountIdPath,
  query: UsageReport.AdminUsageParams,
  success: UsageReport.AdminUsageReport,
  error: [error(400), error(404), ...adminErrors]
})

export const accountUsage = Operation.makeAdmin({
  endpoint,
  handler: Effect.gen(function*() {
    const accounts = yield* Accounts.Accounts
    const usage = yield* Effect.serviceOption(Usage.Usage)
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint, Operation.AdminContext> = ({ path, urlParams }) =>
      Effect.gen(function*() {
        if (Option.isNone(usage)) return yield* new UsageNotCounted()
        const now = clock.currentTimeMillisUnsafe()
        const range = UsageReport.rangeOf(urlParams, now)
        if (Result.isFailure(range)) return yield* range.failure
        const account = yield* accounts.findAccount(path.accountId)
        const keys = yield* accounts.listKeys(path.accountId)
        const stored = yield* usage.value.read(path.accountId, range.success)
        const today = DailyQuota.dayOf(now) * DailyQuota.DAY_MS
        const todays = yield* usage.value.read(path.accountId, { granularity: "day", from: today, to: today + DailyQuota.DAY_MS })
        const used = UsageReport.usedToday(todays, today)
        const prefixes = new Map(keys.map((k) => [k.id, k.prefix]))
        const keyIds = [...new Set([...prefixes.keys(), ...stored.map((b) => b.keyId)])]
        return {
          value: {
            accountId: account.id,
            granularity: range.success.granularity,
            buckets: UsageRange.fill(range.success, stored).map(UsageReport.bucketOf),
            limits: {
              minute: { limit: account.limits.perMinute },
              day: {
                limit: account.limits.perDay,
                used,
                remaining: Math.max(0, account.limits.perDay - used),
                reset: UsageReport.iso(today + DailyQuota.DAY_MS)
              }
            },
            // The account's keys and those with traffic, busiest first, at most `keys` of them;
            // those without traffic zero-filled.
            byKey: UsageReport.busiest(keyIds, stored, urlParams.keys ?? UsageReport.DEFAULT_KEYS).map((keyId) => ({
              keyId,
              prefix: prefixes.get(keyId) ?? "",
              buckets: UsageRange.fill(range.success, stored.filter((b) => b.keyId === keyId)).map(UsageReport.bucketOf)
            })),
            keysTotal: keyIds.length
          }
        }
      })
    return handle
  })
})
