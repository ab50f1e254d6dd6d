/**
 * The HTTP client webhook deliveries go through: undici with keep-alive and a pool per origin (at most
 * `connectionsPerOrigin` connections), redirects not followed, at most a few KiB of each answer read,
 * and an SSRF guard at connect time: the address connected to (after resolution, so a name that
 * re-resolves to a private address is caught) must be public unless private addresses are allowed.
 * undici is loaded, and the agent made, at the first delivery: a server that sends none never loads it
 * (loading it at start-up also starts Node's own copy of undici, for `Headers`).
 */
import { WebhookDelivery } from "@petstore/core"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as dns from "node:dns"
import type { Agent, buildConnector } from "undici"
import { isPublicAddress, literalAddress } from "./WebhookAddress.js"

export interface WebhookClientOptions {
  /** Allow http and private or loopback addresses (`PETSTORE_WEBHOOK_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean
  /** Connections kept to one origin at most. */
  readonly connectionsPerOrigin: number
  /** The longest each phase (connecting, the answer's head, its body) may take; the attempt's deadline bounds them together. */
  readonly timeoutMillis: number
  /** Bytes of an answer's body read at most (the rest is discarded). */
  readonly maxAnswerBytes: number
}

export const DEFAULT_OPTIONS: WebhookClientOptions = {
  allowPrivate: false,
  connectionsPerOrigin: 16,
  timeoutMillis: 15_000,
  maxAnswerBytes: 4_096
}

/** The error of a connection refused by the guard. */
export class RefusedAddress extends Error {
  override readonly name = "RefusedAddress"
  readonly code = "ERR_WEBHOOK_ADDRESS_REFUSED"
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | Array<dns.LookupAddress>, family?: number) => void

/** `dns.lookup` keeping only public addresses (every one, since Node 20's happy eyeballs asks for all). */
export const publicLookup = (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, [])
    const allowed = addresses.filter((a) => isPublicAddress(a.address))
    if (allowed.length === 0) {
      return callback(new RefusedAddress(`${hostname} resolves to no public address`), [])
    }
    if (options.all === true) return callback(null, allowed)
    callback(null, allowed[0]!.address, allowed[0]!.family)
  })
}

/** undici's connector, refusing non-public IP literals itself (a literal host never reaches `lookup`). */
const guardedConnector = (build: typeof buildConnector, timeoutMillis: number): buildConnector.connector => {
  const connect = build({ timeout: timeoutMillis, lookup: publicLookup } as buildConnector.BuildOptions)
  return (options, callback) => {
    const literal = literalAddress(options.hostname)
    if (literal !== undefined && !isPublicAddress(literal)) {
      return callback(new RefusedAddress(`${literal} is not a public address`), null)
    }
    return connect(options, callback)
  }
}

/** Seconds or an HTTP date, as milliseconds from `now`; undefined when absent or unreadable. */
export const retryAfterMillis = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const at = Date.parse(trimmed)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/** undici's own deadlines for a phase (connecting, the answer's head, its body). */
const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"])

/** Why no answer came, for the account: the guard refused the address, a deadline passed, or no exchange. */
const kindOf = (error: unknown): "refused" | "timeout" | "unreachable" => {
  const e = error as { code?: unknown; cause?: unknown } | null
  if (error instanceof RefusedAddress || e?.cause instanceof RefusedAddress) return "refused"
  const code = typeof e?.code === "string" ? e.code : (e?.cause as { code?: unknown } | null)?.code
  return typeof code === "string" && TIMEOUT_CODES.has(code) ? "timeout" : "unreachable"
}

/** A short description of why no answer came, never quoting headers or bodies. */
const describeFailure = (error: unknown): string => {
  const e = error as { name?: string; code?: string; message?: string; cause?: unknown }
  if (e?.cause instanceof RefusedAddress) return `refused: ${e.cause.message}`
  if (e instanceof RefusedAddress) return `refused: ${e.message}`
  const code = typeof e?.code === "string" ? e.code : e?.name ?? "Error"
  return `${code}: ${e?.message ?? String(error)}`.slice(0, 300)
}

/** @category constructors */
export const make = (options: WebhookClientOptions) =>
  Effect.gen(function*() {
    // Made at the first delivery, once; closed with the scope if it was made.
    let made: Promise<Agent> | undefined
    const agent = (): Promise<Agent> =>
      made ??= import("undici").then(({ Agent, buildConnector }) =>
        new Agent({
          connections: options.connectionsPerOrigin,
          keepAliveTimeout: 30_000,
          headersTimeout: options.timeoutMillis,
          bodyTimeout: options.timeoutMillis,
          connect: options.allowPrivate
            ? { timeout: options.timeoutMillis }
            : guardedConnector(buildConnector, options.timeoutMillis)
        })
      ).catch((error: unknown) => {
        // Not kept: the next delivery tries to load it again.
        made = undefined
        throw error
      })
    yield* Effect.addFinalizer(() =>
      made === undefined ? Effect.void : Effect.promise(() => made!.then((a) => a.close()).catch(() => undefined))
    )
    /** The POST, its answer's status and `Retry-After`; `signal` aborts it. */
    const post = async (request: WebhookDelivery.DeliveryRequest, signal: AbortSignal) => {
      const url = new URL(request.url)
      if (!options.allowPrivate && url.protocol !== "https:") throw new RefusedAddress("only https URLs are allowed")
      const answer = await (await agent()).request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: "POST",
        headers: request.headers,
        body: request.body,
        signal
      })
      // Read a little of the body (and drop the rest) so the connection can be kept.
      await answer.body.dump({ limit: options.maxAnswerBytes }).catch(() => undefined)
      const retryAfter = answer.headers["retry-after"]
      return { status: answer.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter }
    }
    return WebhookDelivery.WebhookSender.of({
      // One controller aborts the POST at the attempt's deadline (a timer of the client's, as undici's
      // own) or when the attempt is interrupted.
      send: (request) =>
        Effect.callback<Awaited<ReturnType<typeof post>> | WebhookDelivery.DeliveryOutcome>((resume) => {
          const controller = new AbortController()
          let late = false
          const deadline = setTimeout(() => {
            late = true
            controller.abort()
          }, request.timeoutMillis)
          post(request, controller.signal).then(
            (answer) => {
              clearTimeout(deadline)
              // The head came in time but not the rest (undici ends the body at the abort): no whole answer.
              resume(Effect.succeed(late ? WebhookDelivery.noAnswerWithin(request.timeoutMillis) : answer))
            },
            (error: unknown) => {
              clearTimeout(deadline)
              resume(Effect.succeed(
                late
                  ? WebhookDelivery.noAnswerWithin(request.timeoutMillis)
                  : { _tag: "NoAnswer", kind: kindOf(error), error: describeFailure(error) }
              ))
            }
          )
          return Effect.sync(() => {
            clearTimeout(deadline)
            controller.abort()
          })
        }).pipe(
          Effect.flatMap((answer) =>
            "_tag" in answer
              ? Effect.succeed(answer)
              : Effect.map(Clock.currentTimeMillis, (now): WebhookDelivery.DeliveryOutcome => ({
                _tag: "Answered",
                status: answer.status,
                retryAfterMillis: retryAfterMillis(answer.retryAfter, now)
              }))
          )
        )
    })
  })

/** The sender for the server: closed with its scope. */
export const layer = (options: Partial<WebhookClientOptions> = {}): Layer.Layer<WebhookDelivery.WebhookSender> =>
  Layer.effect(WebhookDelivery.WebhookSender, make({ ...DEFAULT_OPTIONS, ...options }))

