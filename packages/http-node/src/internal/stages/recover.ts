/**
 * The one recovery of a request: what escapes its stages, a failure (the store) or a defect (a
 * throw, at once or in a fiber), is answered 503 or 500; an interruption (the client left) stays
 * one. A defect is logged with its stack. A failure is expected (a dependency did not answer): it
 * is handed to `refused`, which says an outage once rather than once per request (see
 * `Readiness.watch`), so the request itself shows only in its access line. The answer keeps what the stages before learned (the admission's headers, the
 * route), since `write` takes them from the exchange.
 */

import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ErrorResponse from "../../ErrorResponse.js"
import { type Answer, refusal } from "./answer.js"

const UNAVAILABLE = refusal(ErrorResponse.STATIC.unavailable)
const INTERNAL = refusal(ErrorResponse.STATIC.internal)

/** What is said of a refusal when nothing watches outages: one warning line, without a stack. */
const sayRefused = (reason: string): Effect.Effect<void> => Effect.logWarning(`a request was refused (503 unavailable): ${reason}`)

/** The sentence of a failure: its message, and its cause's when it has one (never a stack). */
export const reasonOf = (error: unknown): string => {
  const parts: Array<string> = []
  for (let e: unknown = error, depth = 0; e !== null && e !== undefined && depth < 4; depth++) {
    if (typeof e !== "object") {
      parts.push(String(e))
      break
    }
    const message = (e as { message?: unknown }).message
    if (typeof message === "string" && message !== "" && !parts.includes(message)) parts.push(message)
    e = (e as { cause?: unknown }).cause
  }
  return parts.length === 0 ? "a dependency did not answer" : parts.join(": ")
}

const escaped = (refused: (reason: string) => Effect.Effect<void>) => (cause: Cause.Cause<unknown>): Effect.Effect<Answer> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  const failure = Cause.findErrorOption(cause)
  return Option.isSome(failure)
    ? Effect.as(refused(reasonOf(failure.value)), UNAVAILABLE)
    : Effect.as(Effect.logError("request failed", Cause.squash(cause)), INTERNAL)
}

/**
 * The recovery of a request, made once: `refused` is told of each 503. The answer of `stages` to
 * `input`, run now, with whatever escapes them answered (503, 500).
 */
export const make = (refused: (reason: string) => Effect.Effect<void> = sayRefused) => {
  const handler = escaped(refused)
  return <I>(stages: (input: I) => Effect.Effect<Answer, unknown>, input: I): Effect.Effect<Answer> => {
    let answer: Effect.Effect<Answer, unknown>
    try {
      answer = stages(input)
    } catch (defect) {
      answer = Effect.die(defect)
    }
    return Effect.catchCause(answer, handler)
  }
}
