/**
 * A request as the application sees it, whatever server received it.
 *
 * @since 1.0.0
 */
import type { Effect } from "effect"

/** The body, or the fact that it was larger than the limit (it is then not read further). */
export type BodyResult =
  | { readonly _tag: "Body"; readonly bytes: Uint8Array }
  | { readonly _tag: "TooLarge" }

export interface AppRequest {
  readonly method: string
  /** Path and query, as sent. */
  readonly url: string
  /** Header values by lower-case name. */
  readonly header: (name: string) => string | undefined
  /** The socket peer's address. */
  readonly remoteAddress: string | undefined
  /**
   * The body, up to `limit` bytes. A server may have read it already (node:http reads up to
   * `BODY_LIMIT` before handing the request in), and then answers at once.
   */
  readonly readBody: (limit: number) => Effect.Effect<BodyResult>
}
