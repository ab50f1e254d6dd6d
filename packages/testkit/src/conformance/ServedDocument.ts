/**
 * The first step of a conformance run: the OpenAPI document, fetched without a key from every
 * instance, compiled into the checker of every later answer, and held to the interface's rules.
 */
import * as DocumentRules from "./DocumentRules.js"
import { toCurl } from "./HttpExchange.js"
import * as OpenApiChecker from "./OpenApiChecker.js"
import type { ConformanceReport } from "./RunReport.js"
import { failedBeforeSequences } from "./RunReport.js"
import type { RunSettings } from "./RunOptions.js"

/** The served document's checker and the warnings it left, or the report of a run that stops here. */
export const checkServedDocument = async (
  settings: RunSettings,
  messagesPrefix: string
): Promise<{ readonly checker: OpenApiChecker.OpenApiChecker; readonly warnings: Array<string> } | ConformanceReport> => {
  const { clients, publicPrefix } = settings
  const client = clients[0]!
  const failed = (message: string, curl?: string) => failedBeforeSequences(settings, message, curl)
  const docExchange = await client.send({ method: "GET", path: `${publicPrefix}/openapi.json`, headers: {} })
  if (docExchange.response.status !== 200) {
    return failed(`GET ${publicPrefix}/openapi.json → ${docExchange.response.status}: the document must be served without a key`)
  }
  let document: unknown
  try {
    document = JSON.parse(docExchange.response.text)
  } catch {
    return failed(`GET ${publicPrefix}/openapi.json: not JSON`)
  }
  for (const other of clients.slice(1)) {
    const x = await other.send(docExchange.request)
    if (x.response.status !== 200) return failed(`GET ${other.origin}${publicPrefix}/openapi.json → ${x.response.status}: every instance serves the document`)
  }
  let checker: OpenApiChecker.OpenApiChecker
  try {
    checker = OpenApiChecker.make(document)
  } catch (error) {
    return failed(`GET ${publicPrefix}/openapi.json: ${(error as Error).message}`, toCurl(client.origin, docExchange.request))
  }
  const documentVerdict = DocumentRules.check(document, { publicPrefix, messagesPrefix }, (method, path) => {
    const route = checker.match(method, path)
    return route._tag === "UnknownRoute" ? undefined : route.template
  })
  if (documentVerdict.failures.length > 0) {
    return failed(
      `the document GET ${publicPrefix}/openapi.json departs from the interface:\n- ${documentVerdict.failures.join("\n- ")}`,
      toCurl(client.origin, docExchange.request)
    )
  }
  // The checker's own warning on the version is a failure above; the rest are matters of taste.
  const warnings = [...checker.warnings.filter((w) => !w.startsWith("openapi is ")), ...documentVerdict.warnings]
  return { checker, warnings }
}
