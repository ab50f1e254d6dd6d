/**
 * The request body limit: the number the readers enforce and the text every answer and the OpenAPI
 * document quote, so the two cannot drift apart.
 *
 * @internal
 */

/** The largest request body read, in bytes; a larger one is answered 413 `payload_too_large`. */
export const BODY_LIMIT = 64 * 1024

/** `BODY_LIMIT` as messages and the document write it (`64 KiB`). */
export const BODY_LIMIT_TEXT = `${BODY_LIMIT / 1024} KiB`
