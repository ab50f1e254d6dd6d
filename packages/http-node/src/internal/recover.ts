/**
 * What escapes a request's stages: a failure (the store) becomes 503, a defect 500, both logged;
 * an interruption stays one. Stages that answer at once keep their answer as it is (no fiber).
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Option from "effect/Option"
import type { AppResponse } from "../AppResponse.js"
import * as ErrorResponse from "../ErrorResponse.js"
import { type Answer, refusal, write } from "./answer.js"

const run = <A>(steps: () => Effect.Effect<A, unknown>, escaped: (answer: Answer) => A): Effect.Effect<A> => {
  let result: Effect.Effect<A, unknown>
  try {
    result = steps()
  } catch (defect) {
    result = Effect.die(defect)
  }
  if (Exit.isExit(result) && Exit.isSuccess(result)) return result as Exit.Exit<A>
  return result.pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause)
        ? Effect.failCause(cause)
        : Effect.as(
          Effect.logError("request failed", Cause.squash(cause)),
          escaped(refusal(
            Option.isSome(Cause.failureOption(cause)) ? ErrorResponse.STATIC.unavailable : ErrorResponse.STATIC.internal
          ))
        )
    ),
    Effect.orDie
  )
}

/**
 * Runs `steps`, which may answer at once: an answer already there is kept (no fiber needed);
 * anything else, a defect thrown by a step run at once included, is recovered as 503 or 500.
 */
export const guarded = (steps: () => Effect.Effect<Answer, unknown>): Effect.Effect<Answer> => run(steps, identity)

/** `guarded` for stages that end with the response: what escapes them is written with no other headers. */
export const guardedResponse = (steps: () => Effect.Effect<AppResponse, unknown>): Effect.Effect<AppResponse> =>
  run(steps, (answer) => write(answer))
