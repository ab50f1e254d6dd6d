/**
 * A TCP proxy on loopback that a test can cut and restore, to play a network outage between a
 * server process and its database: `cut` closes the listener and every connection through it
 * (clients see their connections reset and new ones refused); `restore` listens again on the same port.
 */
import * as Net from "node:net"

export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const start = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Net.Socket>()
  const server = Net.createServer((client) => {
    const upstream = Net.connect(targetPort, targetHost)
    sockets.add(client)
    sockets.add(upstream)
    client.pipe(upstream).pipe(client)
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on("error", end).on("close", end)
    upstream.on("error", end).on("close", end)
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
  const cut = async () => {
    const closed = stopListening()
    for (const socket of sockets) socket.resetAndDestroy()
    sockets.clear()
    await closed
  }
  return { port, cut, restore: async () => void (await listen(port)), close: cut }
}
