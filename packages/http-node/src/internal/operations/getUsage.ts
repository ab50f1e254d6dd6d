/**
 * `GET /v1/usage` (beta): the calling account's usage per hour or day, zero-filled, by outcome, with
 * its limits as the decision that admitted this very request states them.
 */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import { Usage, UsageRange } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import { UsageNotCounted } from "../../ErrorResponse.js"
import * as UsageReport from "../usageReport.js"
import { invalid, notFound, commonErrors } from "./endpoint.js"
import * as Operation from "./operation.js"

const DESCRIPTION = "**Beta.** The calling account's requests per `hour` or `day` (UTC) from `from` (inclusive) to `to` " +
  "(exclusive), one bucket per interval, zero-filled and in order: every request its keys sent that was decided " +
  "(allowed, or refused for the rate limit, the daily quota or a ban) and, among the allowed, those answered 4xx and 5xx. " +
  "Counts are written every few seconds (`PETSTORE_USAGE_FLUSH_SECONDS`, default 5), so the last seconds may not show " +
  "yet. At most 168 hourly or 400 daily buckets (`400` beyond); hourly buckets are kept 90 days, daily ones 13 months. " +
  "`limits` are the account's limits as they stand after this request, which counts like any other. " +
  "`404` when the server counts no usage."

export const endpoint = HttpApiEndpoint.get("getUsage", "/usage", {
    query: UsageReport.UsageParams,
    success: UsageReport.UsageReport,
    error: [invalid, notFound("usage"), ...commonErrors]
  })
  .annotate(OpenApi.Identifier, "getUsage")
  .annotate(OpenApi.Summary, "Read the account's usage")
  .annotate(OpenApi.Description, DESCRIPTION)
  .annotate(OpenApi.Override, { "x-stability": "beta" })

export const getUsage = Operation.make({
  endpoint,
  handler: Effect.gen(function*() {
    const usage = yield* Effect.serviceOption(Usage.Usage)
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint> = ({ urlParams }, { decision, principal }) => {
      if (Option.isNone(usage)) return Effect.fail(new UsageNotCounted())
      const now = decision?.at ?? clock.currentTimeMillisUnsafe()
      const range = UsageReport.rangeOf(urlParams, now)
      if (Result.isFailure(range)) return Effect.fail(range.failure)
      return Effect.map(usage.value.read(principal.accountId, range.success), (stored) => ({
        value: {
          accountId: principal.accountId,
          granularity: range.success.granularity,
          buckets: UsageRange.fill(range.success, stored).map(UsageReport.bucketOf),
          limits: UsageReport.limitsOf(decision, principal.limits, now)
        }
      }))
    }
    return handle
  })
})
