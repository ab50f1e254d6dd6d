/**
 * A fault-injecting TCP proxy on loopback, between a server process and its database or Redis, to
 * play the faults of a network or a dependency (test support only; nothing of it ships):
 * - `delay(ms)`: every chunk, either way, is forwarded `ms` later (added latency; order kept);
 * - `partition()`: a silent partition: connections stay open and new ones are accepted, but bytes
 *   are held, either way; `heal()` delivers every held byte, in order, and forwards again;
 * - `silence()`: like a partition, but the bytes are dropped, and `restore` resets those connections;
 * - `reset()`: every connection through it is reset (new ones are accepted);
 * - `cut()` / `restore()`: stop and start: the listener is closed and every connection reset
 *   (clients see their connections reset and new ones refused), then it listens on the same port;
 * - `retarget(host, port)`: new connections go elsewhere (an address that now names another server).
 */
import * as Net from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly silence: () => void
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
  readonly delay: (millis: number) => void
  readonly partition: () => void
  readonly heal: () => void
  readonly reset: () => void
  /** New connections go to `host:port` from now on (those open stay where they are). */
  readonly retarget: (host: string, port: number) => void
}

/** One direction of one connection: what it forwards, holds or drops. */
interface Flow {
  readonly from: Net.Socket
  readonly to: Net.Socket
  readonly held: Array<Buffer>
}

export const start = async (host: string, port: number): Promise<TcpProxy> => {
  let target = { host, port }
  const sockets = new Set<Net.Socket>()
  const flows = new Set<Flow>()
  let mode: "forward" | "hold" | "drop" = "forward"
  let delayMillis = 0

  const track = (socket: Net.Socket) => {
    sockets.add(socket)
    const end = () => {
      socket.destroy()
      sockets.delete(socket)
    }
    socket.on("error", end).on("close", end)
  }
  const send = (flow: Flow, chunk: Buffer) => {
    const write = () => {
      if (!flow.to.destroyed) flow.to.write(chunk)
    }
    if (delayMillis > 0) setTimeout(write, delayMillis)
    else write()
  }
  const connect = (from: Net.Socket, to: Net.Socket) => {
    const flow: Flow = { from, to, held: [] }
    flows.add(flow)
    from.on("data", (chunk: Buffer) => {
      if (mode === "hold") flow.held.push(chunk)
      else if (mode === "forward") send(flow, chunk)
    })
    from.on("close", () => {
      flows.delete(flow)
      to.destroy()
    })
  }
  const server = Net.createServer((client) => {
    track(client)
    if (mode === "drop") {
      client.resume() // read and drop
      return
    }
    const upstream = Net.connect(target.port, target.host)
    track(upstream)
    connect(client, upstream)
    connect(upstream, client)
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as Net.AddressInfo).port)
      })
    })
  const own = await listen(0)
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))
  const reset = () => {
    for (const socket of sockets) socket.resetAndDestroy()
    sockets.clear()
    flows.clear()
  }
  const cut = async () => {
    const closed = stopListening()
    reset()
    await closed
  }
  const restore = async () => {
    if (mode === "drop") reset()
    mode = "forward"
    if (!server.listening) await listen(own)
  }
  const heal = () => {
    mode = "forward"
    for (const flow of flows) for (const chunk of flow.held.splice(0)) send(flow, chunk)
  }
  return {
    port: own,
    cut,
    silence: () => {
      mode = "drop"
    },
    restore,
    close: cut,
    delay: (millis) => {
      delayMillis = millis
    },
    partition: () => {
      mode = "hold"
    },
    heal,
    reset,
    retarget: (host, port) => {
      target = { host, port }
    }
  }
}

/** `url` (a postgres:// or redis:// URL) with its host and port those of `proxy`. */
export const through = (url: string, proxy: Pick<TcpProxy, "port">): string => {
  const via = new URL(url)
  via.hostname = "127.0.0.1"
  via.port = String(proxy.port)
  return via.toString()
}

/** A proxy in front of the server `url` names (its port, or `defaultPort`). */
export const before = (url: string, defaultPort: number): Promise<TcpProxy> => {
  const target = new URL(url)
  return start(target.hostname, Number(target.port || defaultPort))
}
