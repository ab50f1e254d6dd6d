/**
 * The log of a command sequence: each request sent, with the values of its answer that later
 * requests use, and the log as a replayable shell script (printed when the sequence fails).
 */
import { type HttpExchange, type HttpRequest, toCurl } from "./HttpExchange.js"

/** One logged request; `defines` names values of its JSON answer for later commands (`jq` paths). */
export interface LoggedExchange {
  readonly label: string
  /** The instance that answered. */
  readonly origin: string
  readonly exchange: HttpExchange
  readonly defines: ReadonlyArray<readonly [variable: string, jqPath: string, value: string]>
}

/**
 * The entries as a replayable shell script: each literal in `variables` (keys, ids) is written as the
 * shell variable that stands for it, set from the answer that defines it.
 */
export const curlScript = (entries: ReadonlyArray<LoggedExchange>, variables: ReadonlyMap<string, string>): string => {
  const substitute = (s: string): string => {
    let out = s
    for (const [literal, variable] of variables) if (literal.length >= 8) out = out.split(literal).join(`$${variable}`)
    return out
  }
  const lines: Array<string> = [
    "# Set ADMIN_TOKEN (and KEY_n for keys given on the command line) before running.",
    "set -u"
  ]
  for (const entry of entries) {
    const request: HttpRequest = { ...entry.exchange.request, path: substitute(entry.exchange.request.path) }
    const curl = toCurl(entry.origin, request, substitute)
    lines.push(`# ${entry.label} (got ${entry.exchange.response.status})`)
    if (entry.defines.length === 0) {
      lines.push(curl)
    } else {
      lines.push(`RESPONSE=$(${curl.replace("curl -sS -i", "curl -sS")})`)
      for (const [variable, jq] of entry.defines) lines.push(`${variable}=$(printf '%s' "$RESPONSE" | jq -r '${jq}')`)
    }
  }
  return lines.join("\n")
}
