/**
 * The checker's webhook receiver (`--webhook-receiver`): a node:http server on loopback that keeps
 * every delivery as it came (raw body, headers, which account's URL it was POSTed to, when) and
 * answers `204` at once. Each account the checker creates gets its own path, `/hooks/{accountId}`,
 * so a delivery says which endpoint it was sent to.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** One POST the receiver got. @category models */
export interface ReceivedDelivery {
  /** The account whose URL it was POSTed to (`undefined`: a path the checker never set). */
  readonly accountId: string | undefined
  readonly method: string
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  /** The body exactly as received (what the signature covers). */
  readonly body: Buffer
  /** `Date.now()` when it arrived. */
  readonly receivedAt: number
  /**
   * Why its signature did not verify when it arrived (`undefined`: it did), as the receiver's
   * `verify` said: checked on arrival, since a receiver judges the timestamp against its own clock then.
   */
  readonly signatureProblem: string | undefined
}

/** Checks a delivery's signature on arrival: why it fails, or `undefined`. */
export type VerifyDelivery = (delivery: Omit<ReceivedDelivery, "signatureProblem">) => string | undefined

/** Where the receiver listens: a port (0, the default, takes a free one) and a loopback host. */
export interface ReceiverAddress {
  readonly port?: number | undefined
  readonly host?: string | undefined
}

const PATH = /^\/hooks\/([^/?]+)$/

/** A running receiver. @category models */
export class WebhookReceiver {
  readonly deliveries: Array<ReceivedDelivery> = []
  private readonly listeners = new Set<() => void>()

  private constructor(private readonly server: http.Server, readonly origin: string) {}

  /** Listens on `address` (default 127.0.0.1, a free port), checking each delivery's signature with `verify`. */
  static async start(verify: VerifyDelivery, address: ReceiverAddress = {}): Promise<WebhookReceiver> {
    const host = address.host ?? "127.0.0.1"
    let receiver: WebhookReceiver | undefined
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        const path = req.url ?? ""
        const id = PATH.exec(path)?.[1]
        const delivery = {
          accountId: id === undefined ? undefined : decodeURIComponent(id),
          method: req.method ?? "",
          path,
          headers: req.headers,
          body: Buffer.concat(chunks),
          receivedAt: Date.now()
        }
        receiver!.record({ ...delivery, signatureProblem: verify(delivery) })
        res.writeHead(204).end()
      })
    })
    server.keepAliveTimeout = 30_000
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(address.port ?? 0, host, () => resolve())
    })
    const { port } = server.address() as AddressInfo
    receiver = new WebhookReceiver(server, `http://${host.includes(":") ? `[${host}]` : host}:${port}`)
    return receiver
  }

  /** The URL the checker sets as the account's endpoint. */
  urlFor(accountId: string): string {
    return `${this.origin}/hooks/${encodeURIComponent(accountId)}`
  }

  private record(delivery: ReceivedDelivery): void {
    this.deliveries.push(delivery)
    for (const listener of this.listeners) listener()
  }

  /** Resolves at the next delivery, or after `ms`, whichever comes first. */
  nextDelivery(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.listeners.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.listeners.add(done)
    })
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections()
      this.server.close(() => resolve())
    })
  }
}
