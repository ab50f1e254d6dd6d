/**
 * Answers written straight to a socket, where no response object stands for the request: the 503
 * past the connection cap, the 405 to CONNECT, node's client errors. Each is a whole HTTP/1.1
 * answer with an Error body and closes the connection.
 *
 * @internal
 */
import * as Http from "node:http"
import * as ErrorResponse from "../../../ErrorResponse.js"
import * as RequestId from "../../requestId.js"

/** An Error body as a whole HTTP/1.1 answer that closes the connection, for a socket no response object stands for. */
export const rawAnswer = ({ body, status }: ErrorResponse.ErrorResult, extra = ""): string =>
  `HTTP/1.1 ${status} ${Http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n${extra}` +
  `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`

/**
 * The answer to CONNECT for a server whose routes answer `methods` (`Allow` lists them), built once:
 * given the request's id (taken when well-formed, else generated).
 */
export const connectNotAllowed = (methods: ReadonlyArray<string>): (requestId: string) => string => {
  const allow = methods.join(", ")
  const error = ErrorResponse.methodNotAllowed("CONNECT", allow)
  return (requestId) => rawAnswer(error, `Allow: ${allow}\r\n${RequestId.HEADER}: ${requestId}\r\n`)
}

const TOO_MANY_CONNECTIONS = ErrorResponse.STATIC.tooManyConnections

/** The answer to a connection past the cap: no request has been read, so its id is generated. */
export const tooManyConnections = (): string =>
  rawAnswer(TOO_MANY_CONNECTIONS, `Retry-After: 1\r\n${RequestId.HEADER}: ${RequestId.of(undefined)}\r\n`)

/** The answer to a request node could not parse or did not receive in time, with the request's id when its headers were read. */
export const clientError = (code: string | undefined, request: Http.IncomingMessage | undefined): string =>
  rawAnswer(ErrorResponse.fromClientError(code), `${RequestId.HEADER}: ${RequestId.ofNode(request?.headers)}\r\n`)
