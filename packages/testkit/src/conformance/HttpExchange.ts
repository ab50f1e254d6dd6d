/**
 * One HTTP exchange as the conformance checker sees it: the request exactly as sent (so it can be
 * printed as a curl command) and the response with its status, headers and body text.
 *
 * @since 1.0.0
 */
import * as Http from "node:http"
import * as Https from "node:https"
import { performance } from "node:perf_hooks"

/** A request to send. Header names are sent as given; `body` is sent as UTF-8 bytes. @category models */
export interface HttpRequest {
  readonly method: string
  /** Path and query, relative to the server's origin (e.g. `/v1/pets?limit=5`). */
  readonly path: string
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | undefined
}

/** An answer as the checker records it. @category models */
export interface HttpResponse {
  readonly status: number
  /** Header values by lower-case name (repeated headers joined with ", "). */
  readonly headers: Readonly<Record<string, string>>
  readonly text: string
}

/** A request, its response, and when it was sent and answered (monotonic ms). @category models */
export interface HttpExchange {
  readonly request: HttpRequest
  readonly response: HttpResponse
  readonly sentAt: number
  readonly receivedAt: number
  /** Wall-clock ms when sent, to compare with epoch headers such as `X-RateLimit-Reset`. */
  readonly wallSentAt: number
}

/** Sends requests to one origin over kept-alive connections. @category models */
export interface HttpClient {
  readonly origin: string
  readonly send: (request: HttpRequest) => Promise<HttpExchange>
  readonly close: () => void
}

/** Monotonic milliseconds. */
export const now = (): number => performance.now()

/** A client for the checker's requests to `baseUrl`. @category constructors */
export const makeClient = (baseUrl: string, options: { readonly timeoutMs?: number } = {}): HttpClient => {
  const url = new URL(baseUrl)
  const secure = url.protocol === "https:"
  const agent = secure ? new Https.Agent({ keepAlive: true, maxSockets: 4 }) : new Http.Agent({ keepAlive: true, maxSockets: 4 })
  const timeoutMs = options.timeoutMs ?? 15_000
  const guarded = new WeakSet<object>()
  const send = (request: HttpRequest): Promise<HttpExchange> =>
    new Promise((resolve, reject) => {
      const bytes = request.body === undefined ? undefined : Buffer.from(request.body, "utf8")
      const headers: Record<string, string> = { ...request.headers }
      if (bytes !== undefined) headers["Content-Length"] = String(bytes.length)
      const wallSentAt = Date.now()
      const sentAt = now()
      const req = (secure ? Https.request : Http.request)(
        {
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port,
          method: request.method,
          path: request.path,
          headers,
          agent,
          timeout: timeoutMs
        },
        (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("error", reject)
          res.on("end", () => {
            const receivedAt = now()
            const h: Record<string, string> = {}
            for (const [name, value] of Object.entries(res.headers)) {
              if (value !== undefined) h[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
            }
            resolve({
              request,
              response: { status: res.statusCode ?? 0, headers: h, text: Buffer.concat(chunks).toString("utf8") },
              sentAt,
              receivedAt,
              wallSentAt
            })
          })
        }
      )
      req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms: ${request.method} ${request.path}`)))
      req.on("error", reject)
      // The server may answer (413) before it has read a large body; a reset while writing is not our failure.
      req.on("socket", (s) => {
        if (!guarded.has(s)) {
          guarded.add(s)
          s.on("error", () => undefined)
        }
      })
      req.end(bytes)
    })
  return { origin: url.origin, send, close: () => agent.destroy() }
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`

/**
 * The request as a curl command. `substitute` replaces secrets by shell variables (keys and the
 * admin token), so the printed sequence can be replayed after setting them.
 */
export const toCurl = (origin: string, request: HttpRequest, substitute: (s: string) => string = (s) => s): string => {
  const parts = ["curl -sS -i"]
  if (request.method !== "GET" || request.body !== undefined) parts.push(`-X ${request.method}`)
  for (const [name, value] of Object.entries(request.headers)) {
    parts.push(`-H ${quoteWithVars(`${name}: ${substitute(value)}`)}`)
  }
  if (request.body !== undefined) {
    parts.push(
      request.body.length > 200
        ? `--data-binary "$(head -c ${Buffer.byteLength(request.body)} /dev/zero | tr '\\0' x)"`
        : `--data-binary ${shellQuote(request.body)}`
    )
  }
  parts.push(shellQuote(origin + request.path))
  return parts.join(" ")
}

/** Quotes for the shell but keeps `$NAME` references expandable. */
const quoteWithVars = (s: string): string =>
  /\$[A-Z_][A-Z0-9_]*/.test(s) ? `"${s.replace(/(["\\`])/g, "\\$1")}"` : shellQuote(s)
