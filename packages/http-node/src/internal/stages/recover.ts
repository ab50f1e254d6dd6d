/**
 * The one recovery of a request: what escapes its stages, a failure (the store) or a defect (a
 * throw, at once or in a fiber), is logged and answered 503 or 500; an interruption (the client
 * left) stays one. The answer keeps what the stages before learned (the admission's headers, the
 * route), since `write` takes them from the exchange.
 *
 * @since 1.0.0
 */
import { Sync } from "@petstore/core"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ErrorResponse from "../../ErrorResponse.js"
import { type Answer, refusal } from "./answer.js"

const UNAVAILABLE = refusal(ErrorResponse.STATIC.unavailable)
const INTERNAL = refusal(ErrorResponse.STATIC.internal)

const escaped = (cause: Cause.Cause<unknown>): Effect.Effect<Answer> =>
  Cause.isInterruptedOnly(cause)
    ? Effect.failCause(cause as Cause.Cause<never>)
    : Effect.as(
      Effect.logError("request failed", Cause.squash(cause)),
      Option.isSome(Cause.failureOption(cause)) ? UNAVAILABLE : INTERNAL
    )

/** The answer of `stages` to `input`, run now, with whatever escapes them answered (503, 500). */
export const recover = <I>(stages: (input: I) => Effect.Effect<Answer, unknown>, input: I): Effect.Effect<Answer> => {
  let answer: Effect.Effect<Answer, unknown>
  try {
    answer = stages(input)
  } catch (defect) {
    answer = Effect.die(defect)
  }
  return Sync.catchAllCause(answer, escaped)
}
