/**
 * A webhook receiver on 127.0.0.1 for tests: keeps every delivery (raw body and headers) and answers
 * with the status the test sets, or never (`hang`); can stop and start again on the same port (an outage).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Delivery {
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export interface Receiver {
  readonly port: number
  readonly url: string
  readonly deliveries: Array<Delivery>
  /** The status answered from now on (default 200). */
  status: number
  /** From now on requests are read and never answered (until `stop`): all of them, or those to this path. */
  hang: boolean | string
  /** Requests held without an answer (`hang`) now; the most held at once. */
  readonly open: () => { readonly now: number; readonly most: number }
  /** Stops listening (connections closed): the endpoint is down. */
  readonly stop: () => Promise<void>
  /** Listens again on the same port. */
  readonly restart: () => Promise<void>
}

const listen = (server: http.Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

export const start = async (path = "/hooks"): Promise<Receiver> => {
  const deliveries: Array<Delivery> = []
  let server: http.Server
  let open = 0
  let most = 0
  const make = () =>
    http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        deliveries.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        if (receiver.hang === true || receiver.hang === req.url) {
          open++
          most = Math.max(most, open)
          res.on("close", () => open--)
          return
        }
        res.writeHead(receiver.status).end()
      })
    })
  server = make()
  const port = await listen(server, 0)
  const receiver: Receiver = {
    port,
    url: `http://127.0.0.1:${port}${path}`,
    deliveries,
    status: 200,
    hang: false,
    open: () => ({ now: open, most }),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
    restart: async () => {
      server = make()
      await listen(server, port)
    }
  }
  return receiver
}
