/**
 * The stable `code` values of Error bodies, with the status each is sent with: the catalogue's
 * table (`ErrorResponse.ERROR_CODES`), under the name it has always been exported by.
 *
 * @since 1.0.0
 */
export { ERROR_CODES, type ErrorCode } from "./ErrorResponse.js"
