/**
 * What node:http hands over instead of a request: a CONNECT's socket (no parser is left on it), and
 * its `clientError`s (a request it could not parse, or did not receive in time). Each gets an Error
 * answer in its turn, after every request before it, and the connection is then closed.
 *
 * @internal
 */
import type * as Http from "node:http"
import type * as Net from "node:net"
import * as RequestId from "../../requestId.js"
import * as NodeInternals from "../nodeInternals.js"
import { connectionOf } from "./connection.js"
import { endWith, type Pipeline } from "./pipelining.js"
import * as RawAnswers from "./rawAnswers.js"

/** The server's `connect` listener: CONNECT is answered by `answer` (405 with `Allow`) in its turn, then the connection closes. */
export const onConnect = (pipeline: Pipeline, answer: (requestId: string) => string) => (request: Http.IncomingMessage, socket: Net.Socket): void => {
  socket.on("error", () => {})
  endWith(pipeline, socket, answer(RequestId.ofNode(request.headers)))
}

/** The server's `clientError` listener: a reset is closed at once; anything else is answered with its Error body. */
export const onClientError = (pipeline: Pipeline) => (error: NodeJS.ErrnoException, socket: Net.Socket): void => {
  const connection = connectionOf(socket)
  if (error.code === "ECONNRESET" || connection === undefined) return void socket.destroy()
  if (!socket.writable && !connection.closing) return void socket.destroy()
  // A request whose body never arrived whole is not carried out (NodeHandler waits for a whole
  // body, which can no longer come): the error answer does not wait for it. One whose body was
  // refused as too large is answered (413, closing the connection), and that answer is the last.
  const cut = NodeInternals.requestBeingRead(socket)
  if (cut !== undefined && !cut.complete && !NodeInternals.handedInIncomplete(cut)) {
    const at = connection.running.findIndex((response) => response.req === cut)
    if (at >= 0) connection.running.splice(at, 1)
    const h = connection.held.indexOf(cut)
    if (h >= 0) connection.held.splice(h, 2)
  }
  // The request's own id when its headers were read (a timed-out body), otherwise a new one.
  endWith(pipeline, socket, RawAnswers.clientError(error.code, cut))
}
