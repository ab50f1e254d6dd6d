/**
 * What the server's connections may hold, and what each is owed:
 *
 * - at most `maxConnections` at once; past that a new connection gets a 503 Error body and is closed;
 * - the requests of one connection run at most `maxInFlight` at a time, and no new one starts while
 *   more than `maxBufferedBytes` of its answers wait for the client to read them. Past either bound
 *   the server stops reading from the connection (backpressure): requests wait, none is refused;
 * - its answers go out in the order of its requests, and an error that ends the connection (a
 *   malformed request, a timeout) is answered after every request before it was;
 * - a connection the server closes lingers: what the client still sends is read and dropped for a
 *   while, so that the client reads its last answer instead of a reset. No request read after that
 *   point, or after a request that asked to close, is carried out.
 *
 * node:http parses the requests; this module decides when each one starts. Its parts, under
 * `internal/hosts/connections`: the cap (`connectionCap`), the order of a connection's requests
 * (`pipelining`), when one may start (`backpressure`), closing (`lingering`), what node hands over
 * instead of a request (`clientErrors`) and the answers written to a bare socket (`rawAnswers`).
 * node's undocumented fields they use are all in `internal/hosts/nodeInternals`.
 *
 * @since 1.0.0
 */
import type * as Http from "node:http"
import * as NodeInternals from "./internal/hosts/nodeInternals.js"
import { onClientError, onConnect } from "./internal/hosts/connections/clientErrors.js"
import { capConnections } from "./internal/hosts/connections/connectionCap.js"
import type { ConnectionLimits } from "./internal/hosts/connections/limits.js"
import { type Listener, onRequest, type Pipeline } from "./internal/hosts/connections/pipelining.js"
import { connectNotAllowed } from "./internal/hosts/connections/rawAnswers.js"

export type { ConnectionLimits } from "./internal/hosts/connections/limits.js"

/**
 * The defaults: 10,000 connections (fewer when the process may open fewer files), 16 requests of a
 * connection at once, 64 KiB of unread answers, 2 s of lingering.
 */
export { defaults } from "./internal/hosts/connections/limits.js"

/** An Error body as a whole HTTP/1.1 answer that closes the connection, for a socket no response object stands for. */
export { rawAnswer } from "./internal/hosts/connections/rawAnswers.js"

/** The connections of a server put under limits. */
export interface Installed {
  /** Closes every connection at once, whatever it is doing (the end of a shutdown's grace). */
  readonly destroyAll: () => void
}

/**
 * Puts `server`'s connections under `limits`: it accepts connections up to the cap, starts each
 * request with `listener` when its connection's bounds allow, and answers node's `clientError`s.
 * `methods` are those the application's routes answer (see `App.methodsOf`): the 405 to CONNECT
 * lists them in `Allow`.
 */
export const install = (
  server: Http.Server,
  listener: Listener,
  limits: ConnectionLimits,
  methods: ReadonlyArray<string>
): Installed => {
  const pipeline: Pipeline = { listener, limits }
  // A client that half-closes after its requests still reads their answers; the last one closes.
  NodeInternals.allowHalfOpen(server)
  const request = onRequest(pipeline)
  server.on("request", request)
  server.on("checkContinue", request)
  server.on("checkExpectation", request)
  server.on("connect", onConnect(pipeline, connectNotAllowed(methods)))
  server.on("clientError", onClientError(pipeline))
  return capConnections(server, limits)
}
