// Preloaded (`node --import`) into a server process by Tracing.test.ts: any import of an
// OpenTelemetry module fails, so a server that starts and serves under it loaded none of them.
import { register } from "node:module"

const hooks = `export async function resolve(specifier, context, next) {
  if (specifier.includes("opentelemetry")) throw new Error("forbidden import: " + specifier)
  return next(specifier, context)
}`
register(`data:text/javascript,${encodeURIComponent(hooks)}`)
