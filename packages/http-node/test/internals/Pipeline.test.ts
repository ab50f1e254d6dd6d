/**
 * The pipeline: stages run in order until one answers; the rest do not run; a list that never
 * answers is a defect; a stage that reads what no stage before it sets does not compile there.
 */

import { Effect, Exit } from "effect"
import { describe, expect, it } from "vitest"
import { answer } from "../../src/internal/stages/answer.js"
import { decode } from "../../src/internal/stages/decode.js"
import type * as Exchange from "../../src/internal/stages/exchange.js"
import * as Pipeline from "../../src/internal/stages/pipeline.js"
import * as ReadBody from "../../src/internal/stages/readBody.js"
import * as Route from "../../src/internal/stages/route.js"
import { apiRoutes, exchange } from "./support/Stages.js"

describe("pipeline", () => {
  it("runs the stages in order until one answers, at once when none waits, in a fiber when one does", async () => {
    const ran: Array<string> = []
    const goOn = (name: string): Pipeline.Stage => () => Effect.sync(() => void ran.push(name))
    const answers = (name: string): Pipeline.Stage => () => Effect.sync(() => (ran.push(name), answer(204, undefined)))
    const waits: Pipeline.Stage = () => Effect.as(Effect.yieldNow, undefined)
    // None waits: it runs to its answer synchronously.
    const first = Effect.runSyncExit(Pipeline.run(Pipeline.begin().then(goOn("a")).then(goOn("b")).then(answers("c")).then(goOn("d")), exchange()))
    expect(first).toStrictEqual(Exit.succeed(answer(204, undefined)))
    expect(ran).toStrictEqual(["a", "b", "c"])
    ran.length = 0
    const later = Pipeline.run(Pipeline.begin().then(goOn("a")).then(waits).then(answers("c")), exchange())
    expect((await Effect.runPromise(later)).status).toBe(204)
    expect(ran).toStrictEqual(["a", "c"])
  })

  it("a list whose stages all go on is a defect", () => {
    const exit = Effect.runSyncExit(Pipeline.run(Pipeline.begin().then(() => Pipeline.GO_ON), exchange()))
    expect(Exit.isFailure(exit)).toBe(true)
  })

  it("a stage listed before the stages that set what it reads does not compile", () => {
    const route = Route.make({ routes: apiRoutes, allowedElsewhere: () => undefined, operationHeaders: {} })
    const readBody = ReadBody.make({ bodyLimit: 1024, emptyBodyIsObject: false })
    // In order: each stage reads what the ones before it set.
    const ordered = Pipeline.begin().then(route).then(readBody).then(decode)
    expect(ordered.stages).toHaveLength(3)
    // @ts-expect-error decode reads the payload, which read body sets after it
    Pipeline.begin().then(route).then(decode)
    // @ts-expect-error read body reads the route, which no stage before it sets
    Pipeline.begin().then(readBody)
    // A stage that reads the principal only an admitted request has.
    const needsPrincipal: Pipeline.Stage<Exchange.Start & Exchange.Admitted> = (e) => Effect.as(Effect.sync(() => e.principal.keyId), undefined)
    // @ts-expect-error the principal is not known before admit
    Pipeline.begin().then(needsPrincipal)
  })
})
