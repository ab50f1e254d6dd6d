/** The one recovery: what escapes the stages (a failure, a defect thrown at once or later) is answered 503 or 500; an answer stays as it is. */

import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { answer } from "../../src/internal/stages/answer.js"
import * as Recover from "../../src/internal/stages/recover.js"

/** The recovery that logs each 503's reason as a warning (the default). */
const recover = Recover.make()

const run = (effect: Effect.Effect<unknown>) => Effect.runPromise(Effect.exit(effect))

describe("recover", () => {
  it("an answer is kept, at once", () => {
    const ok = answer(200, "[]")
    expect(Effect.runSyncExit(recover(() => Effect.succeed(ok), undefined))).toStrictEqual(Exit.succeed(ok))
  })

  it("a failure is 503 unavailable, a defect (thrown at once, or in a fiber) 500 internal_error", async () => {
    const status = async (stages: () => Effect.Effect<any, unknown>) => {
      const exit = await run(recover(stages, undefined))
      return Exit.isSuccess(exit) ? (exit.value as { status: number }).status : "failed"
    }
    expect(await status(() => Effect.fail("store down"))).toBe(503)
    expect(await status(() => {
      throw new Error("at once")
    })).toBe(500)
    expect(await status(() => Effect.sync(() => {
      throw new Error("in a step")
    }))).toBe(500)
    expect(await status(() => Effect.flatMap(Effect.yieldNow, () => Effect.die("later")))).toBe(500)
  })

  it("an interruption stays one (the client left: no answer)", async () => {
    const exit = await run(recover(() => Effect.interrupt, undefined))
    expect(Exit.hasInterrupts(exit)).toBe(true)
  })
})
