/** The pipeline: stages run in order until one answers; the rest do not run; a list that never answers is a defect. */

import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { answer } from "../../src/internal/stages/answer.js"
import * as Pipeline from "../../src/internal/stages/pipeline.js"
import { exchange } from "./support/Stages.js"

describe("pipeline", () => {
  it("runs the stages in order until one answers, at once when none waits, in a fiber when one does", async () => {
    const ran: Array<string> = []
    const goOn = (name: string): Pipeline.Stage => () => Effect.sync(() => void ran.push(name))
    const answers = (name: string): Pipeline.Stage => () => Effect.sync(() => (ran.push(name), answer(204, undefined)))
    const waits: Pipeline.Stage = () => Effect.as(Effect.yieldNow, undefined)
    // None waits: it runs to its answer synchronously.
    const first = Effect.runSyncExit(Pipeline.run([goOn("a"), goOn("b"), answers("c"), goOn("d")], exchange()))
    expect(first).toStrictEqual(Exit.succeed(answer(204, undefined)))
    expect(ran).toStrictEqual(["a", "b", "c"])
    ran.length = 0
    const later = Pipeline.run([goOn("a"), waits, answers("c")], exchange())
    expect((await Effect.runPromise(later)).status).toBe(204)
    expect(ran).toStrictEqual(["a", "c"])
  })

  it("a list whose stages all go on is a defect", () => {
    const exit = Effect.runSyncExit(Pipeline.run([() => Pipeline.GO_ON], exchange()))
    expect(Exit.isFailure(exit)).toBe(true)
  })
})
