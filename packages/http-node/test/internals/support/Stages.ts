/**
 * What the stage tests share: a request made of its parts, an exchange for it, and a stage's
 * outcome taken as the request's runner takes it (at once, or the test fails).
 */

import { Effect, Exit } from "effect"
import { Api, OPERATIONS } from "../../../src/Api.js"
import type { AppRequest, BodyResult } from "../../../src/AppRequest.js"
import * as Routes from "../../../src/internal/routes.js"
import * as Exchange from "../../../src/internal/stages/exchange.js"
import type { Outcome, Stage } from "../../../src/internal/stages/pipeline.js"

export const request = (
  parts: {
    readonly method?: string
    readonly url?: string
    readonly headers?: Record<string, string>
    readonly body?: BodyResult
    readonly remoteAddress?: string
  } = {}
): AppRequest => ({
  method: parts.method ?? "GET",
  url: parts.url ?? "/v1/pets",
  header: (name) => parts.headers?.[name],
  remoteAddress: parts.remoteAddress ?? "192.0.2.1",
  readBody: () => Effect.succeed(parts.body ?? { _tag: "Body", bytes: new Uint8Array() })
})

export const exchange = (parts?: Parameters<typeof request>[0]) => Exchange.make(request(parts))

/** Any stage, as the tests hand it an exchange they filled themselves. */
type AnyStage = Stage<any, any>

/** The outcome of `stage` on `exchange`, answered at once (the test fails if it needed a fiber). */
export const outcomeAtOnce = (stage: AnyStage, exchange: Exchange.Exchange): Outcome => {
  // Run synchronously: a stage that has to wait fails to run this way.
  const result: Exit.Exit<Outcome, unknown> = Effect.runSyncExit(stage(exchange))
  if (Exit.isFailure(result)) throw new Error("the stage failed or had to wait")
  return result.value
}

/** The outcome of `stage` on `exchange`, run in a fiber (for stages that wait or log). */
export const outcome = (stage: AnyStage, exchange: Exchange.Exchange) => Effect.runPromise(stage(exchange))

/** The public API's route table, with a handler for every operation it lists (the stages under test never run one). */
export const apiRoutes = Routes.table(
  Routes.compile<any, any>(Api, Object.fromEntries(OPERATIONS.map((o) => [o.endpoint.identifier, () => Effect.die(o.endpoint.identifier)])))
)
