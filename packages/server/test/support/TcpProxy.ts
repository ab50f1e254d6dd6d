/**
 * A TCP proxy on loopback that a test can cut and restore, to play a network outage between a
 * server process and its database: `cut` closes the listener and every connection through it
 * (clients see their connections reset and new ones refused); `silence` keeps every connection
 * open and accepts new ones but forwards nothing either way (a peer that stopped answering, which
 * only the client's own timeouts notice); `restore` resets the silenced connections and forwards
 * again, listening on the same port.
 */
import * as Net from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly silence: () => void
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const start = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Net.Socket>()
  let silent = false
  const track = (socket: Net.Socket) => {
    sockets.add(socket)
    const end = () => {
      socket.destroy()
      sockets.delete(socket)
    }
    socket.on("error", end).on("close", end)
  }
  const server = Net.createServer((client) => {
    track(client)
    if (silent) {
      client.resume() // read and drop
      return
    }
    const upstream = Net.connect(targetPort, targetHost)
    track(upstream)
    client.pipe(upstream).pipe(client)
    for (const [a, b] of [[client, upstream], [upstream, client]] as const) a.on("close", () => b.destroy())
  })
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as Net.AddressInfo).port)
      })
    })
  const port = await listen(0)
  const stopListening = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()))
  const resetAll = () => {
    for (const socket of sockets) socket.resetAndDestroy()
    sockets.clear()
  }
  const cut = async () => {
    const closed = stopListening()
    resetAll()
    await closed
  }
  const silence = () => {
    silent = true
    for (const socket of sockets) {
      socket.unpipe()
      socket.resume() // read and drop
    }
  }
  const restore = async () => {
    if (silent) {
      silent = false
      resetAll()
    }
    if (!server.listening) await listen(port)
  }
  return { port, cut, silence, restore, close: cut }
}
