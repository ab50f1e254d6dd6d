/**
 * The server's logs: Effect's Logger, configured here once. Each log is one line, a JSON object in
 * pino's shape (`level` as pino's number, `time` in epoch milliseconds, `pid`, `hostname`, `msg`, the
 * annotations such as `requestId`, and `err` when an error is logged), or text for people; lines are written to standard output together, once per turn of the
 * event loop, so a busy server makes one write for many access lines.
 */
import * as References from "effect/References"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schedule from "effect/Schedule"
import * as AccessLine from "@petstore/http-node/AccessLine"
import * as os from "node:os"
import type { LogConfig } from "./ServerConfig.js"

const LEVELS: Record<LogConfig["level"], LogLevel.LogLevel> = {
  debug: "Debug",
  info: "Info",
  warning: "Warn",
  error: "Error",
  none: "None"
}

/** What a log call was given: the words of its message, and the error(s) it carried. */
interface Parts {
  readonly message: string
  readonly error: ErrorFacts | undefined
}

/** An error as pino writes one (`err`): its type, its message, its stack (the whole story). */
interface ErrorFacts {
  readonly type: string
  readonly message: string
  readonly stack: string
}

const describeError = (error: Error): string => error.stack ?? `${error.name}: ${error.message}`

/** A log call's message when it is one string (Effect 4 hands loggers the values of the call). */
const oneString = (message: unknown): string | undefined =>
  typeof message === "string"
    ? message
    : Array.isArray(message) && message.length === 1 && typeof message[0] === "string"
    ? message[0]
    : undefined

// `Effect.logError("request failed", error)` gives an array: strings make the message, errors the error.
const partsOf = (message: unknown, cause: Cause.Cause<unknown>): Parts => {
  // The access line and most others: one string, no cause.
  const one = oneString(message)
  if (one !== undefined && cause.reasons.length === 0) return { message: one, error: undefined }
  const words: Array<string> = []
  const errors: Array<Error> = []
  const stories: Array<string> = []
  for (const part of Array.isArray(message) ? message : [message]) {
    if (typeof part === "string") words.push(part)
    else if (part instanceof Error) {
      errors.push(part)
      stories.push(describeError(part))
    } else words.push(Inspectable.toStringUnknown(part, 0))
  }
  if (cause.reasons.length > 0) stories.push(Cause.pretty(cause))
  if (stories.length === 0) return { message: words.join(" "), error: undefined }
  const first = errors[0]
  const stack = stories.join("\n")
  return {
    message: words.join(" "),
    error: {
      type: first?.name ?? "Cause",
      message: first?.message ?? stack.slice(0, stack.indexOf("\n") === -1 ? undefined : stack.indexOf("\n")),
      stack
    }
  }
}

/**
 * pino's numbers for the levels (trace 10 … fatal 60), so the tools that read pino's lines (pino-pretty,
 * log collectors' Node parsers) read these.
 */
export const PINO_LEVELS: Readonly<Record<LogLevel.LogLevel, number>> = {
  All: 10,
  Trace: 10,
  Debug: 20,
  Info: 30,
  Warn: 40,
  Error: 50,
  Fatal: 60,
  None: 100
}

const RESERVED = new Set(["time", "level", "msg", "pid", "hostname", "err"])

// `,"key":` of each annotation name seen (a handful: the code's own names), "" for the reserved
// ones; bounded in case names were ever made per request.
const keyPrefixes = new Map<string, string>()
const keyPrefix = (key: string): string => {
  let prefix = keyPrefixes.get(key)
  if (prefix === undefined) {
    prefix = RESERVED.has(key) ? "" : `,${JSON.stringify(key)}:`
    if (keyPrefixes.size < 1_000) keyPrefixes.set(key, prefix)
  }
  return prefix
}

/** The process's facts every line carries, as pino's `base`: `,"pid":…,"hostname":"…"`. */
const BASE = `,"pid":${process.pid},"hostname":${JSON.stringify(os.hostname())}`

// The start of a line up to its message, `{"level":30,"time":…,"pid":…,"hostname":"…","msg":`, for
// the last millisecond and level seen: a busy server writes many lines in the same millisecond.
let headMillis = Number.NaN
let headLevel: LogLevel.LogLevel | undefined
let head = ""
const lineHead = (millis: number, level: LogLevel.LogLevel): string => {
  if (millis !== headMillis || level !== headLevel) {
    headMillis = millis
    headLevel = level
    head = `{"level":${PINO_LEVELS[level]},"time":${millis}${BASE},"msg":`
  }
  return head
}

/**
 * One JSON object per line in pino's shape: `level` (pino's number), `time` (milliseconds since the
 * epoch), `pid`, `hostname`, `msg`, then each annotation, then `err` when an error was logged.
 */
export const jsonLogger: Logger.Logger<unknown, string> = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  // Written out rather than through an object and JSON.stringify: this runs for every access line.
  const one = cause.reasons.length === 0 ? oneString(message) : undefined
  const parts = one !== undefined ? undefined : partsOf(message, cause)
  let line = lineHead(date.getTime(), logLevel) + JSON.stringify(one ?? parts!.message)
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  for (const key in annotations) {
    const value = annotations[key]
    const prefix = keyPrefix(key)
    if (prefix !== "") line += prefix + (typeof value === "number" ? jsonNumber(value) : JSON.stringify(structured(value)) ?? "null")
  }
  if (parts?.error !== undefined) line += `,"err":${JSON.stringify(parts.error)}`
  return line + "}"
})

// `"request"`, the access line's message, as JSON.
const ACCESS_MESSAGE_JSON = JSON.stringify(AccessLine.MESSAGE)

/**
 * The access line `jsonLogger` writes for the message `"request"` with `facts` as its annotations,
 * written from the facts themselves: the same keys and values (in the facts' order rather than the
 * annotation map's), without building the map (`AccessLine`). Level Info, at `millis`. Written out
 * key by key rather than as a loop over `AccessLine.KEYS`, which is slower on every request (see
 * docs/decisions.md); the tests check the two agree.
 */
export const jsonAccessLine = (facts: AccessLine.Facts, millis: number): string => {
  let line = lineHead(millis, "Info") + ACCESS_MESSAGE_JSON + ",\"requestId\":" + JSON.stringify(facts.requestId)
  if (facts.reqId !== undefined) line += ",\"reqId\":" + JSON.stringify(facts.reqId)
  line += ",\"method\":" + JSON.stringify(facts.method) + ",\"path\":" + JSON.stringify(facts.path)
  if (facts.route !== undefined) line += ",\"route\":" + JSON.stringify(facts.route)
  line += ",\"status\":" + jsonNumber(facts.status) + ",\"clientAddress\":" + JSON.stringify(facts.clientAddress) +
    ",\"durationMs\":" + jsonNumber(facts.durationMs)
  if (facts.accountId !== undefined) line += ",\"accountId\":" + JSON.stringify(facts.accountId)
  return line + "}"
}

// A number as JSON (`null` for one JSON cannot hold), in every line's annotations.
const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : "null")

// Plain values as they are; anything else as Effect's structured loggers show it.
const structured = (value: unknown): unknown =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === null
    ? value
    : Inspectable.toJson(value)

const textValue = (value: unknown): string => {
  const text = typeof value === "string" ? value : Inspectable.toStringUnknown(value, 0)
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text)
}

/** For a terminal: `time LEVEL message key=value …`, an error on the lines after. */
export const textLogger: Logger.Logger<unknown, string> = Logger.make(({ cause, date, fiber, logLevel, message }) => {
  const parts = partsOf(message, cause)
  let line = `${date.toISOString()} ${logLevel.toUpperCase().padEnd(5)} ${parts.message}`
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  for (const key in annotations) line += ` ${key}=${textValue(annotations[key])}`
  return parts.error === undefined ? line : `${line}\n${parts.error.stack.replace(/^/gm, "    ")}`
})

/** Where lines go: appended, and written together at the end of the event loop's turn. */
export interface LineWriter {
  readonly write: (line: string) => void
  readonly flush: () => void
}

/**
 * Where the writer writes: standard output, a Node stream. `writableLength` is what the stream
 * still holds, unwritten (a pipe whose reader is behind).
 */
export interface LineStream {
  readonly write: (chunk: string | Uint8Array) => unknown
  readonly writableLength?: number | undefined
}

/**
 * A writer that gathers the lines of one event-loop turn into one write on `stream`.
 *
 * A turn's lines are a string of many small pieces (each line is built by concatenation). When the
 * stream cannot take them at once (standard output is a pipe whose reader is behind: Node then
 * queues the chunk), a queued string would be copied by every scavenge and promoted to the old
 * generation with all its pieces, which made the access log the largest part of the server's
 * scavenge pauses and peak memory under load. So a chunk that would wait is handed over as bytes,
 * outside the JS heap; a chunk the stream takes at once is handed over as it is.
 */
export const batchedWriter = (stream: LineStream): LineWriter => {
  let pending = ""
  let scheduled = false
  const flush = () => {
    scheduled = false
    if (pending === "") return
    const out = pending
    pending = ""
    stream.write((stream.writableLength ?? 0) > 0 ? Buffer.from(out, "utf8") : out)
  }
  return {
    write: (line) => {
      pending += line + "\n"
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    flush
  }
}

/** How long the server waits, when it stops, for standard output to take the lines it still holds. */
const DRAIN_WITHIN = Duration.seconds(5)

/**
 * Waits until `stream` holds nothing unwritten (at most `within`): the process exits on SIGTERM,
 * and what Node still queues for a pipe then is lost.
 */
export const drained = (stream: LineStream, within: Duration.Input = DRAIN_WITHIN): Effect.Effect<void> =>
  Effect.void.pipe(
    Effect.repeat({ schedule: Schedule.spaced(Duration.millis(10)), until: () => (stream.writableLength ?? 0) === 0 }),
    // Interruptible, so that the timeout can stop it where it runs: in the log layer's finalizer,
    // which is not (a finalizer's region would otherwise wait for the stream however long it takes).
    Effect.interruptible,
    Effect.timeout(within),
    Effect.ignore,
    Effect.when(Effect.sync(() => (stream.writableLength ?? 0) > 0)),
    Effect.asVoid
  )

/** The format used when none is configured: text on a terminal, JSON otherwise (a collector reads it). */
export const defaultFormat = (stdout: { readonly isTTY?: boolean | undefined }): "json" | "text" =>
  stdout.isTTY === true ? "text" : "json"

/**
 * Replaces Effect's loggers with the configured format and level, writing to `stdout`
 * (what is still pending is written when the layer closes, and the layer waits, a bounded time, until
 * standard output has taken it).
 */
export const layer = (
  config: LogConfig,
  stdout: LineStream & { readonly isTTY?: boolean | undefined } = process.stdout
): Layer.Layer<never> =>
  Layer.unwrap(Effect.gen(function*() {
    const writer = batchedWriter(stdout)
    yield* Effect.addFinalizer(() => Effect.andThen(Effect.sync(writer.flush), drained(stdout)))
    const json = (config.format ?? defaultFormat(stdout)) === "json"
    const logger = Logger.map(json ? jsonLogger : textLogger, writer.write)
    // In JSON, an access line is written from its facts (the same line, at a fraction of the cost).
    const lines = json ? AccessLine.withAccessWriter(logger, (facts, millis) => writer.write(jsonAccessLine(facts, millis))) : logger
    // Every other logger goes (the command line's runtime adds a pretty one); the tracer's stays,
    // so a log inside a span is also an event of that span.
    return Layer.merge(
      Layer.succeed(References.CurrentLoggers, new Set([lines, Logger.tracerLogger])),
      Layer.succeed(References.MinimumLogLevel, LEVELS[config.level])
    )
  }))

