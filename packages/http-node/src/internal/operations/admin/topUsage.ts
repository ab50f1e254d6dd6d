/** `GET /admin/v1/usage/top`: the accounts with the most requests (or refusals) in a range (`404` when the server counts no usage). */
import * as Clock from "effect/Clock"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import { Usage } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as UsageReport from "../../usageReport.js"
import * as Operation from "../operation.js"
import { adminErrors, error } from "./adminEndpoint.js"

export const endpoint = HttpApiEndpoint.get("topUsage", "/usage/top", {
  query: UsageReport.TopParams,
  success: UsageReport.TopUsage,
  error: [error(400), error(404), ...adminErrors]
})

export const topUsage = Operation.makeAdmin({
  endpoint,
  handler: Effect.gen(function*() {
    const usage = yield* Effect.serviceOption(Usage.Usage)
    const clock = yield* Clock.Clock
    const handle: Operation.HandlerOf<typeof endpoint, Operation.AdminContext> = ({ urlParams }) =>
      Effect.gen(function*() {
        const [counted, range] = yield* UsageReport.countedRange(usage, urlParams, clock.currentTimeMillisUnsafe())
        const by = urlParams.by ?? "total"
        const top = yield* counted.top(range, by, urlParams.limit ?? 10)
        return {
          value: {
            by,
            granularity: range.granularity,
            from: UsageReport.iso(range.from),
            to: UsageReport.iso(range.to),
            accounts: top.map((t) => ({ accountId: t.accountId, total: t.total, refused: t.refused }))
          }
        }
      })
    return handle
  })
})
