/**
 * `GET /admin/v1/usage`: the usage of every account summed, per hour or day, zero-filled (the
 * console's dashboard; `404` when the server counts no usage). Same range rules and defaults as
 * `GET /v1/usage`. Summed by the store in one read (`Usage.sum`), from the same buckets that
 * `GET /admin/v1/accounts/{accountId}/usage` reads, so the sum is exactly theirs.
 */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Usage, UsageRange } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as UsageReport from "../../usageReport.js"
import * as Operation from "../operation.js"
import { adminErrors, error } from "./adminEndpoint.js"

/** The answer of `GET /admin/v1/usage`: the range and every account's usage summed per bucket. */
export const AllUsage = Schema.Struct({
  granularity: UsageReport.Granularity,
  from: Schema.String.annotate({ description: "Start of the range (ISO 8601)." }),
  to: Schema.String.annotate({ description: "End of the range, exclusive (ISO 8601)." }),
  buckets: Schema.Array(UsageReport.UsageBucket)
}).annotate({ identifier: "AllUsage", description: "Every account's usage summed, per bucket." })

export const endpoint = HttpApiEndpoint.get("allUsage", "/usage", {
  query: UsageReport.UsageParams,
  success: AllUsage,
  error: [error(400), error(404), ...adminErrors]
})

export const allUsage = Operation.makeAdmin({
  endpoint,
  handler: Effect.gen(function*() {
    const usage = yield* Effect.serviceOption(Usage.Usage)
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint, Operation.AdminContext> = ({ urlParams }) =>
      Effect.gen(function*() {
        const [counted, range] = yield* UsageReport.countedRange(usage, urlParams, clock.currentTimeMillisUnsafe())
        const summed = yield* counted.sum(range)
        return {
          value: {
            granularity: range.granularity,
            from: UsageReport.iso(range.from),
            to: UsageReport.iso(range.to),
            buckets: UsageRange.fill(range, summed).map(UsageReport.bucketOf)
          }
        }
      })
    return handle
  })
})
