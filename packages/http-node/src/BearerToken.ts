/**
 * The syntax of a bearer token (RFC 6750's b64token, RFC 7235's token68): the one place both the
 * request's `Authorization` header and the configured admin token are read against, so a token the
 * server is configured with is always one a client can send.
 *
 * @since 1.0.0
 */

/**
 * The token's characters: letters, digits, `-._~+/`, then `=` padding only at the end.
 *
 * @category syntax
 */
export const TOKEN68 = "[A-Za-z0-9\\-._~+/]+=*"

const WHOLE = new RegExp(`^${TOKEN68}$`)

/**
 * Whether `text` can be sent as `Authorization: Bearer <text>`.
 *
 * @category syntax
 */
export const isToken68 = (text: string): boolean => WHOLE.test(text)
