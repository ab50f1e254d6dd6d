/**
 * Stage admit: the limiter's decision for the key's account (429 when it refuses), or for the
 * address of a request without a valid key (401, then 429 once the failed attempts are spent);
 * the decision's rate-limit headers go on the exchange either way.
 */
import * as Clock from "effect/Clock"
import { describe, expect, it } from "@effect/vitest"
import { RateLimiter } from "@petstore/core"
import { Effect } from "effect"
import * as Admit from "../../src/internal/stages/admit.js"
import { exchange, outcomeAtOnce } from "./support/Stages.js"

const principal = { accountId: "acc_1", keyId: "key_1", limits: { perMinute: 2, perDay: 100 }, suspended: false }

describe("stage admit", () => {
  it.effect("a key's requests go on until the bucket is spent, then 429; each with its rate-limit headers and account", () =>
    Effect.gen(function*() {
      const stage = Admit.make({ limiter: RateLimiter.makeMemory(RateLimiter.DEFAULT_OPTIONS, yield* Clock.Clock), clientAddress: () => "192.0.2.1" })
      const statuses = []
      for (let i = 0; i < 3; i++) {
        const e = exchange()
        e.principal = principal
        statuses.push(outcomeAtOnce(stage, e)?.status ?? "go on")
        expect(e.accountId).toBe("acc_1")
        expect(e.admission?.["X-RateLimit-Limit"]).toBe("2")
      }
      expect(statuses).toStrictEqual(["go on", "go on", 429])
    }))

  it.effect("without a valid key: 401 with the challenge (invalid_token when a token was sent), then 429 past the address's limit", () =>
    Effect.gen(function*() {
      const limiter = RateLimiter.makeMemory({ ...RateLimiter.DEFAULT_OPTIONS, failedAuthPerMinute: 2 }, yield* Clock.Clock)
      const stage = Admit.make({ limiter, clientAddress: (request) => request.remoteAddress! })
      const none = exchange()
      expect(outcomeAtOnce(stage, none)).toMatchObject({ status: 401, headers: { "WWW-Authenticate": "Bearer realm=\"petstore\"" } })
      expect(none.accountId).toBeUndefined()
      expect(none.admission?.["X-RateLimit-Remaining"]).toBe("1")
      const wrong = exchange()
      wrong.token = "psk_test_wrong"
      expect(outcomeAtOnce(stage, wrong)?.headers?.["WWW-Authenticate"]).toContain("error=\"invalid_token\"")
      expect(outcomeAtOnce(stage, exchange())?.status).toBe(429)
      // Another address has its own attempts.
      expect(outcomeAtOnce(stage, exchange({ remoteAddress: "192.0.2.2" }))?.status).toBe(401)
    }))
})
