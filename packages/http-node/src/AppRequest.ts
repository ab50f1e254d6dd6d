/**
 * A request as the application sees it, whatever server received it.
 *
 * @since 1.0.0
 */
import type * as Effect from "effect/Effect"

/**
 * The body; or the fact that it was larger than the limit (it is then not read further); or that
 * the server that received the request let something else read it and kept nothing usable.
 */
export type BodyResult =
  | { readonly _tag: "Body"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Consumed" }

/** A request as the application reads it, whatever the host. */
export interface AppRequest {
  readonly method: string
  /** Path and query the application routes on: as sent, less `basePath`. */
  readonly url: string
  /**
   * Where the host mounted the application (`"/petstore"`; `""` or absent at the root): the
   * paths answers link to (`Location`, `Link`) start with it.
   */
  readonly basePath?: string | undefined
  /** Header values by lower-case name. */
  readonly header: (name: string) => string | undefined
  /**
   * The id the host gave the request, when it gives one (Fastify's `request.id`, Express's `req.id`
   * as pino-http and request-id middleware set it): written as `reqId` on the request's log lines,
   * the name the host's own lines use, so both are found together.
   */
  readonly hostRequestId?: string | undefined
  /** The socket peer's address. */
  readonly remoteAddress: string | undefined
  /**
   * The body, up to `limit` bytes. A server may have read it already (node:http reads up to
   * `BODY_LIMIT` before handing the request in), and then answers at once.
   */
  readonly readBody: (limit: number) => Effect.Effect<BodyResult>
}
