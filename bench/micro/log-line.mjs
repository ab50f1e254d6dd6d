// One access line in pino's shape (level, time, pid, hostname, msg, then the request's facts):
//   - the server's own JSON logger (packages/server/dist/Logging.js, `jsonLogger`), as Effect hands it a line;
//   - pino itself behind Effect's Logger: the line's annotations (an object in Effect 4, read from the
//     fiber), then `pino.info(object, msg)` into a destination that only takes the string (no I/O on
//     either side).
// docs/decisions.md ("Logs in pino's shape") records the result and the choice it made.
import { Cause, References } from "effect"
import pino from "pino"
import * as Logging from "../../packages/server/dist/Logging.js"
import { consume, nsPerOp, report } from "./harness.mjs"

const facts = (i) => ({
  requestId: `0f8fa4c2-5b1e-4d2a-9c1f-${String(i % 1000).padStart(12, "0")}`,
  method: "GET",
  path: "/v1/pets",
  route: "GET /v1/pets",
  status: 200,
  clientAddress: "127.0.0.1",
  durationMs: 0.412,
  accountId: "acc_3fK9s0dLq2"
})
const ANNOTATIONS = Array.from({ length: 1000 }, (_, i) => facts(i))
// What a logger is handed in Effect 4: the message (`Effect.log`'s arguments), the level, the cause,
// the date and the fiber, whose references hold the annotations (all a logger here reads of it).
const fiberWith = (annotations) => ({
  getRef: (reference) => (reference === References.CurrentLogAnnotations ? annotations : reference.defaultValue())
})
const FIBERS = ANNOTATIONS.map(fiberWith)
const entry = (i) => ({
  message: ["request"],
  logLevel: "Info",
  cause: Cause.empty,
  fiber: FIBERS[i % 1000],
  date: new Date()
})
const annotationsOf = ({ fiber }) => fiber.getRef(References.CurrentLogAnnotations)

let written = 0
const destination = { write: (line) => void (written += line.length) }
const logger = pino({ level: "info" }, destination)

const ours = nsPerOp((i) => Logging.jsonLogger.log(entry(i)).length)
const theirs = nsPerOp((i) => {
  logger.info(annotationsOf(entry(i)), "request")
  return written
})

// Both write the same facts: the same keys in the same order after pino's five.
const sample = JSON.parse(Logging.jsonLogger.log(entry(1)))
written = 0
let last = ""
const check = pino({ level: "info" }, { write: (line) => void (last = line) })
const object = annotationsOf(entry(1))
check.info(object, "request")
const pinoLine = JSON.parse(last)
consume(Object.keys(sample).join() === Object.keys({ level: 0, time: 0, pid: 0, hostname: 0, msg: 0, ...object }).join() ? 1 : 0)
if (Object.keys(sample).sort().join() !== Object.keys(pinoLine).sort().join()) throw new Error(`the lines differ: ${JSON.stringify(sample)} / ${last}`)

report("access line (pino's shape)", [
  { id: "log-ours", label: "server's JSON logger, ns per line", value: ours, unit: "ns" },
  { id: "log-pino", label: "pino behind Effect's Logger, ns per line", value: theirs, unit: "ns" }
])
