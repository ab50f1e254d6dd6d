/**
 * What a conformance run found: the report, built as the run goes (requests, warnings, what the
 * webhook check saw), and its words for people and CI logs.
 *
 * @since 1.0.0
 */
import type { RunSettings } from "./RunOptions.js"
import type { WebhookSummary } from "./WebhookCheck.js"

/** The first failure found, and the commands that lead to it. @category models */
export interface ConformanceFailure {
  readonly message: string
  /** The shrunk command sequence, as fast-check prints it. */
  readonly commands: string
  /** The requests of the shrunk sequence as a replayable shell script. */
  readonly curl: string
  readonly shrinks: number
  /** The command line that runs the shrunk sequence again (seed and path); secrets as shell variables. */
  readonly replay: string
}

/** What a conformance run did and found. @category models */
export interface ConformanceReport {
  readonly ok: boolean
  readonly runs: number
  readonly seed: number
  readonly durationMs: number
  readonly requests: number
  readonly warnings: ReadonlyArray<string>
  /** How often each answer was seen (`"201"`, `"429 key_banned"` ...): what the run exercised. */
  readonly answers: Readonly<Record<string, number>>
  /** Set when the time limit stopped the run before `numRuns` sequences, in words. */
  readonly stoppedEarly?: string | undefined
  /** With `webhookReceiver`, once the deliveries were checked: what arrived. */
  readonly webhooks?: WebhookSummary | undefined
  readonly failure?: ConformanceFailure | undefined
}

/** What a run counts and notes as it goes, for its report. */
export interface RunTally {
  requests: number
  readonly warnings: Array<string>
  webhooks: WebhookSummary | undefined
}

/** A run that failed before any sequence ran. */
export const failedBeforeSequences = (settings: RunSettings, message: string, curl = ""): ConformanceReport => ({
  ok: false,
  runs: 0,
  seed: settings.seed,
  durationMs: Date.now() - settings.started,
  requests: 0,
  warnings: [],
  answers: {},
  failure: { message, commands: "", curl, shrinks: 0, replay: settings.replay() }
})

/** A failure found after the sequences, outside any of them (`after` says where). */
export const failureAfterSequences = (
  settings: RunSettings,
  after: string,
  found: { readonly message: string; readonly curl: string }
): ConformanceFailure => ({ message: found.message, commands: `(none: ${after})`, curl: found.curl, shrinks: 0, replay: settings.replay() })

/** A report in words, for people and CI logs. @category formatting */
export const formatReport = (report: ConformanceReport): string => {
  const lines: Array<string> = []
  for (const w of report.warnings) lines.push(`warning: ${w}`)
  if (report.ok) {
    const figures = `${report.runs} command sequences, ${report.requests} requests, seed ${report.seed}, ${(report.durationMs / 1000).toFixed(1)} s`
    // A run the time limit cut short says so first: what passed is less than what was asked.
    lines.push(
      report.stoppedEarly === undefined
        ? `conformance: passed (${figures})`
        : `conformance: passed, but STOPPED EARLY: ${report.stoppedEarly}; only what ran was checked (${figures})`
    )
    lines.push(`answers: ${Object.entries(report.answers).map(([k, n]) => `${k} ×${n}`).join(", ")}`)
    const w = report.webhooks
    if (w !== undefined) {
      lines.push(`webhooks: ${w.messages} accepted messages delivered to ${w.endpoints} endpoints, all verified (${w.deliveries} deliveries, ${w.duplicates} duplicates)`)
    }
    return lines.join("\n")
  }
  const f = report.failure!
  lines.push(`conformance: FAILED after ${report.runs} sequences (seed ${report.seed}, ${f.shrinks} shrinks)`)
  lines.push("", f.message)
  if (f.commands !== "") lines.push("", "Shortest failing command sequence:", `  ${f.commands}`)
  if (f.curl !== "") lines.push("", "The same requests as curl commands:", f.curl)
  lines.push("", "Replay it with:", `  ${f.replay}`)
  return lines.join("\n")
}
