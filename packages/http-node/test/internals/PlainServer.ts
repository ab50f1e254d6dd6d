/**
 * A bare node:http server on 127.0.0.1 (port 0) for the tests of the connection machinery, without
 * the application: each test gives the listener and what it installs, and talks raw HTTP to it.
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import * as RawHttp from "../support/RawHttp.js"

/** Runs `use` with `server` listening, then closes it and every connection it still has. */
export const withServer = async <A>(server: Http.Server, use: (url: string) => Promise<A>): Promise<A> => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  try {
    return await use(`http://127.0.0.1:${port}`)
  } finally {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** Sends `bytes` on a new connection (half-closing after them when asked) and reads until the server closes it. */
export const send = (url: string, bytes: string, options: { readonly halfClose?: boolean } = {}): Promise<RawHttp.Ending> =>
  Effect.runPromise(RawHttp.exchangeEnding(url, bytes, 5_000, options.halfClose ?? false))

/** A connection opened to `url`, once connected. */
export const open = (url: string): Promise<Net.Socket> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = Net.connect(Number(port), hostname, () => resolve(socket))
    socket.once("error", reject)
  })

/** A request as bytes (HTTP/1.1, `Host: x`), with extra header lines. */
export const get = (path: string, headers = ""): string => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`

/** A listener answering `200 <path>` with a Content-Length body. */
export const echoPath = (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
  response.writeHead(200, { "Content-Length": Buffer.byteLength(request.url ?? "") })
  response.end(request.url)
}

export const answers = RawHttp.answers
