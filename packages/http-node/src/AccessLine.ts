/**
 * The access line: the facts of one answer (request id, method, path, route, status, client,
 * duration, account), which the request observer hands to the loggers the application was built
 * with, once per request.
 *
 * Any Effect `Logger` gets them as `Effect.log` would give them: the message `"request"` with the
 * facts among its annotations. A logger may also say that it writes the line from the facts
 * themselves (`withAccessWriter`): it is then handed the facts as they are, without the annotation
 * map that Effect's log call is made of, which a server's own logger formats at a fraction of the
 * cost (the map was most of the access line's CPU per request).
 *
 * @since 1.0.0
 */
import * as Logger from "effect/Logger"

/** The message of every access line (the facts are its annotations). */
export const MESSAGE = "request"

/** The facts of one answer. Optional ones are left out of the line when absent. */
export interface Facts {
  readonly requestId: string
  /** The host's own id of the request, when it has one. */
  readonly reqId: string | undefined
  readonly method: string
  readonly path: string
  /** The route that answered, or the one a refused request asked for (`GET /v1/pets/{petId}`). */
  readonly route: string | undefined
  readonly status: number
  readonly clientAddress: string
  readonly durationMs: number
  readonly accountId: string | undefined
}

/** The annotation names of the facts, in the order a line written from them gives them. */
export const KEYS: ReadonlyArray<keyof Facts> = [
  "requestId",
  "reqId",
  "method",
  "path",
  "route",
  "status",
  "clientAddress",
  "durationMs",
  "accountId"
]

/** Writes the access line of `facts`, logged at level Info at `millis` (whole epoch milliseconds). */
export type Writer = (facts: Facts, millis: number) => void

const WriterId: unique symbol = Symbol.for("@petstore/http-node/AccessLine/Writer")

/**
 * A logger that logs as `logger` does and also writes access lines with `write` (`logger` itself is
 * left as it is); `write` must give the line the logger would give for the message `"request"` with
 * the facts as its only annotations (besides the order of the keys), or the two ways of logging
 * would disagree.
 */
export const withAccessWriter = <Message, Output>(logger: Logger.Logger<Message, Output>, write: Writer): Logger.Logger<Message, Output> =>
  Object.assign(Logger.make<Message, Output>((options) => logger.log(options)), { [WriterId]: write })

/** The access writer `logger` carries, if it has one. */
export const writerOf = (logger: Logger.Logger<unknown, unknown>): Writer | undefined => {
  const write = (logger as { readonly [WriterId]?: unknown })[WriterId]
  return typeof write === "function" ? write as Writer : undefined
}
