/**
 * Each answer to a request with a valid key counted as its account's usage (the core's `Usage`,
 * when the application is given one): the limiter's verdict, and the status among the allowed.
 * Decided once, when the application is built: without `Usage` nothing is counted and no hook runs.
 */
import { Usage } from "@petstore/core"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { AppResponse } from "../AppResponse.js"

/** The observer's `count` hook, or `undefined` when the application counts no usage. */
export const make: Effect.Effect<((response: AppResponse) => void) | undefined> = Effect.map(
  Effect.serviceOption(Usage.Usage),
  Option.match({
    onNone: () => undefined,
    onSome: (usage) => (response: AppResponse) => {
      const decision = response.decision
      if (decision !== undefined) usage.record(response.accountId!, response.keyId!, decision.verdict, response.status, decision.at)
    }
  })
)
