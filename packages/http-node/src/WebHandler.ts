/**
 * The application as a fetch handler `(Request) => Promise<Response>`, for hosts built on the web
 * platform's Request and Response.
 *
 * @since 1.0.0
 */
import { Effect, Runtime } from "effect"
import { App } from "./App.js"
import type { AppRequest, BodyResult } from "./AppRequest.js"

export type WebHandler = (request: Request, info?: { readonly remoteAddress?: string }) => Promise<Response>

const readBody = (request: Request, limit: number): Effect.Effect<BodyResult> =>
  Effect.promise(async (): Promise<BodyResult> => {
    const declared = request.headers.get("content-length")
    if (declared !== null && Number(declared) > limit) return { _tag: "TooLarge" }
    if (request.body === null) return { _tag: "Body", bytes: new Uint8Array(0) }
    const reader = request.body.getReader()
    const chunks: Array<Uint8Array> = []
    let size = 0
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      size += value.length
      if (size > limit) {
        await reader.cancel()
        return { _tag: "TooLarge" }
      }
      chunks.push(value)
    }
    const bytes = new Uint8Array(size)
    let offset = 0
    for (const c of chunks) {
      bytes.set(c, offset)
      offset += c.length
    }
    return { _tag: "Body", bytes }
  })

/** Builds the handler on the current runtime. */
export const make: Effect.Effect<WebHandler, never, App> = Effect.gen(function*() {
  const app = yield* App
  const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
  return async (request, info) => {
    const url = new URL(request.url)
    const appRequest: AppRequest = {
      method: request.method,
      url: url.pathname + url.search,
      header: (name) => request.headers.get(name) ?? undefined,
      remoteAddress: info?.remoteAddress,
      readBody: (limit) => readBody(request, limit)
    }
    const result = await runPromise(app.handle(appRequest))
    const body = request.method === "HEAD" ? null : result.body ?? null
    return new Response(body, { status: result.status, headers: result.headers })
  }
})
