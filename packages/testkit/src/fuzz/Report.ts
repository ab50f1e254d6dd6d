/**
 * A fuzz run's report as text: the figures (requests, connections, answers by status, inputs by
 * class, failures by kind), the seed to replay, and for each failure kind the shortest failing
 * connection with its exact bytes.
 *
 * @since 1.0.0
 */
import * as Oracle from "./Oracle.js"
import { type ConnectionScript, show } from "./RawRequest.js"
import type { FailureExample, FuzzReport } from "./Runner.js"

const sorted = (record: Readonly<Record<string, number>>): string =>
  Object.entries(record)
    .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
    .map(([k, n]) => `${k}: ${n}`)
    .join(", ")

/** The bytes of a connection's requests and how they were sent, with the key shown as `$KEY`. */
export const formatScript = (script: ConnectionScript, key: string): string => {
  const how = `${script.delivery}, ${script.cuts.length === 0 ? "in one write per request" : `cut at offsets ${script.cuts.join(", ")}`}` +
    `${script.pauseMs > 0 ? `, ${script.pauseMs} ms between fragments` : ""}${script.halfClose ? ", then the client half-closed (FIN)" : ""}`
  const lines = script.requests.map((r, i) =>
    `    ${i + 1}. [${r.kind}, ${r.framing}] ${r.note.replaceAll(key, "$KEY")}\n       ${show(r.bytes).replaceAll(key, "$KEY")}`
  )
  return [`  sent ${how}:`, ...lines].join("\n")
}

const formatExample = (example: FailureExample, report: FuzzReport): string => {
  const count = report.failures[example.kind] ?? 0
  const lines = [
    `${example.kind} (${count}×): ${Oracle.FAILURE_KINDS[example.kind]}`,
    `  first on connection ${example.connection}: ${example.failure.message.replaceAll(report.key, "$KEY")}`
  ]
  const shrunk = example.shrunk
  if (shrunk === undefined) {
    lines.push(formatScript(example.script, report.key))
  } else if (!shrunk.reproduced) {
    lines.push(
      shrunk.stoppedEarly
        ? "  the --shrink-time limit ended the tries to make it fail again alone before one did; the connection as run:"
        : "  it did not fail that way again when run alone (it may need the concurrent load); the connection as run:"
    )
    lines.push(formatScript(example.script, report.key))
  } else {
    const cut = shrunk.stoppedEarly ? ", shrinking STOPPED EARLY by the --shrink-time limit: a shorter one may fail too" : ""
    lines.push(`  shortest connection that fails the same way alone (${shrunk.shrinks} shrinks${cut}): ${shrunk.failure!.message.replaceAll(report.key, "$KEY")}`)
    lines.push(formatScript(shrunk.script!, report.key))
  }
  lines.push(`  replay: petstore-fuzz --base-url ${report.baseUrl} --key "$KEY" --seed ${report.seed} --only ${example.connection}`)
  return lines.join("\n")
}

/** The report as text. @category formatting */
export const formatFuzzReport = (report: FuzzReport): string => {
  const failed = Object.values(report.failures).reduce((a, b) => a + (b ?? 0), 0)
  const lines = [
    `fuzz: ${report.ok ? "passed" : "FAILED"} (seed ${report.seed})`,
    `  ${report.requests} requests (${report.written} sent whole) on ${report.connections} connections, ${report.concurrency} at a time, ` +
    `in ${(report.durationMs / 1000).toFixed(1)} s`,
    `  answers owed ${report.owed}, received ${report.answered} (and ${report.interim} interim 1xx)`,
    `  answers by status: ${sorted(report.statuses)}`,
    `  requests by input class: ${sorted(report.inputs)}`,
    `  connections by end: ${sorted(report.ends)}`,
    `  failures: ${failed === 0 ? "none" : sorted(report.failures as Record<string, number>)}`
  ]
  if (report.lostServer !== undefined) {
    lines.push(
      "",
      `the server stopped accepting connections after ${(report.lostServer.afterMs / 1000).toFixed(1)} s (crashed?); the run stopped there.`,
      `  connections in flight or cut just before: ${report.lostServer.suspects.join(", ")} (replay each with --seed ${report.seed} --only N)`
    )
  }
  for (const example of report.examples) lines.push("", formatExample(example, report))
  return lines.join("\n")
}
