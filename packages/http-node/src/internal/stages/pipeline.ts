/**
 * The stages of a request, run in the order they are listed. Each stage is a named function of the
 * exchange that answers "go on" (`GO_ON`) or "answer with this" (an `Answer`); the first answer
 * ends the list. A stage that has to wait (a query, a Redis round trip) returns an effect that
 * does; the others answer with a succeeded effect.
 *
 * A list is built with `begin().then(stage)…`: each stage states what it reads (`Needs`, parts of
 * the exchange earlier stages set) and what it sets (`Sets`), and a stage whose needs the stages
 * before it do not set does not compile there.
 */
import * as Effect from "effect/Effect"
import type { Answer } from "./answer.js"
import type { Exchange, Start } from "./exchange.js"

/** What a stage answers: `undefined` to go on with the next stage, or the answer. */
export type Outcome = Answer | undefined

/** The parts `Sets` as a stage writes them: each may be set, none read as if it were. */
export type Draft<Sets> = { -readonly [K in keyof Sets]?: Sets[K] | undefined }

declare const SETS: unique symbol

/**
 * A stage: the exchange in, as far as the stages before it filled it (`Needs`), "go on" or the
 * answer out; when it goes on, it has set `Sets`. It may fail (the store), caught by `recover`.
 */
export interface Stage<in Needs = Start, Sets = {}> {
  (exchange: Needs & Draft<Sets>): Effect.Effect<Outcome, unknown>
  /** Type only: what the stage sets. */
  readonly [SETS]?: Sets
}

/** A list of stages whose going on sets `Have`. */
export interface Stages<Have> {
  /** The list with `stage` after the others: it may read only what they set. */
  readonly then: <Sets>(stage: Stage<Have, Sets>) => Stages<Have & Sets>
  readonly stages: ReadonlyArray<Stage<any, any>>
}

const list = <Have>(stages: ReadonlyArray<Stage<any, any>>): Stages<Have> => ({
  then: <Sets>(stage: Stage<Have, Sets>) => list<Have & Sets>([...stages, stage]),
  stages
})

/** An empty list: the exchange as it starts. */
export const begin = (): Stages<Start> => list([])

/** "Go on with the next stage." */
export const GO_ON: Effect.Effect<Outcome> = Effect.succeed(undefined)

/** The answer of `answer`, from a stage. */
export const answerWith = (answer: Answer): Effect.Effect<Outcome> => Effect.succeed(answer)

const NO_ANSWER = Effect.die(new Error("the last stage of a request went on: every list ends with a stage that answers"))

/** `run` of `stages`, made once: a function of the exchange. */
export const runner = (stages: Stages<unknown>) => (exchange: Exchange): Effect.Effect<Answer, unknown> => run(stages, exchange)

/** Runs `stages` in order on `exchange` until one answers. Call it where the request is being run. */
export const run = (stages: Stages<unknown>, exchange: Exchange): Effect.Effect<Answer, unknown> => from(stages.stages, exchange, 0)

/** The answer of the first stage from `index` on that answers. */
const from = (stages: ReadonlyArray<Stage<any, any>>, exchange: Exchange, index: number): Effect.Effect<Answer, unknown> =>
  index === stages.length
    ? NO_ANSWER
    : Effect.flatMap((stages[index] as Stage<any, any>)(exchange), (outcome) =>
      outcome === undefined ? from(stages, exchange, index + 1) : Effect.succeed(outcome))
