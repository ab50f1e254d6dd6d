/**
 * The stages of a request, run in the order they are listed. Each stage is a named function of the
 * exchange that answers "go on" (`GO_ON`) or "answer with this" (an `Answer`); the first answer
 * ends the list. A stage that has to wait (a query, a Redis round trip) returns an effect that
 * does; the others answer with a succeeded effect.
 *
 * @since 1.0.0
 */

import * as Effect from "effect/Effect"
import type { Answer } from "./answer.js"
import type { Exchange } from "./exchange.js"

/** What a stage answers: `undefined` to go on with the next stage, or the answer. */
export type Outcome = Answer | undefined

/** A stage: the exchange in, "go on" or the answer out; it may fail (the store), caught by `recover`. */
export type Stage = (exchange: Exchange) => Effect.Effect<Outcome, unknown>

/** "Go on with the next stage." */
export const GO_ON: Effect.Effect<Outcome> = Effect.succeed(undefined)

/** The answer of `answer`, from a stage. */
export const answerWith = (answer: Answer): Effect.Effect<Outcome> => Effect.succeed(answer)

const NO_ANSWER = Effect.die(new Error("the last stage of a request went on: every list ends with a stage that answers"))

/** `run` of `stages`, made once: a function of the exchange. */
export const runner = (stages: ReadonlyArray<Stage>) => (exchange: Exchange): Effect.Effect<Answer, unknown> => run(stages, exchange)

/** Runs `stages` in order on `exchange` until one answers. Call it where the request is being run. */
export const run = (stages: ReadonlyArray<Stage>, exchange: Exchange): Effect.Effect<Answer, unknown> => from(stages, exchange, 0)

/** The answer of the first stage from `index` on that answers. */
const from = (stages: ReadonlyArray<Stage>, exchange: Exchange, index: number): Effect.Effect<Answer, unknown> =>
  index === stages.length
    ? NO_ANSWER
    : Effect.flatMap(stages[index]!(exchange), (outcome) =>
      outcome === undefined ? from(stages, exchange, index + 1) : Effect.succeed(outcome))
