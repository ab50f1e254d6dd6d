/**
 * What a client that asks for the API reference's script and never reads costs the server, over
 * real sockets: 8 connections each pipeline two GETs of the 3.3 MB script uncompressed (the worst
 * case) and read nothing. What the server holds for a connection is what it has not yet handed to
 * the kernel: its socket's buffered bytes plus those of the answers queued behind the one on the
 * socket (node's `writableLength` of each). Measured at every poll until the server waits for the
 * client on every connection, it stays under 64 KiB per connection (before the script was written
 * in chunks it was about 2.8 MB: the whole script, less what the kernel took).
 */
import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as DiagnosticsChannel from "node:diagnostics_channel"
import type * as Http from "node:http"
import * as Net from "node:net"
import * as ScalarBundle from "../src/internal/openapi/scalarBundle.js"
import * as ServerSockets from "./support/ServerSockets.js"
import { TestServer } from "./support/TestServer.js"

const BUNDLE = `/docs?asset=scalar-${ScalarBundle.version()}.js`
const CONNECTIONS = 8
/** Node's socket buffer (16 KiB) and one chunk (16 KiB) for the answer on the socket, one chunk for the one queued, headers. */
const BOUND_PER_CONNECTION = 64 * 1024

/** The answers the servers of this process start from now on, with their connection. */
const watchAnswers = Effect.acquireRelease(
  Effect.sync(() => {
    const answers: Array<{ readonly socket: Net.Socket; readonly response: Http.ServerResponse }> = []
    const onStart = (message: unknown) => void answers.push(message as { socket: Net.Socket; response: Http.ServerResponse })
    DiagnosticsChannel.subscribe("http.server.request.start", onStart)
    return { answers, onStart }
  }),
  ({ onStart }) => Effect.sync(() => void DiagnosticsChannel.unsubscribe("http.server.request.start", onStart))
).pipe(Effect.map(({ answers }) => answers))

/** A connection that sends two GETs of the script at once and never reads (paused, no data listener). */
const nonReader = (port: number) =>
  new Promise<Net.Socket>((resolve, reject) => {
    const socket = Net.connect({ host: "127.0.0.1", port }, () => {
      socket.pause()
      const get = `GET ${BUNDLE} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`
      socket.write(get + get)
      resolve(socket)
    })
    socket.once("error", reject)
  })

it.effect("a client that pipelines two GETs of the script and never reads makes the server hold under 64 KiB per connection", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start()
    const sockets = yield* ServerSockets.watch
    const answers = yield* watchAnswers
    const port = Number(new URL(server.url).port)
    const clients = yield* Effect.acquireRelease(
      Effect.promise(() => Promise.all(Array.from({ length: CONNECTIONS }, () => nonReader(port)))),
      (clients) => Effect.sync(() => clients.forEach((client) => client.destroy()))
    )

    /** The server's side of each connection and its answers, once accepted and both requests started. */
    const connections = () =>
      clients.map((client) => {
        const socket = sockets.of(client)
        return { socket, responses: answers.filter((a) => a.socket === socket && socket !== undefined).map((a) => a.response) }
      })
    const heldBy = ({ responses, socket }: ReturnType<typeof connections>[number]) =>
      (socket?.writableLength ?? 0) + responses.filter((r) => r.socket === null).reduce((sum, r) => sum + r.writableLength, 0)
    let most = 0
    // Both answers of every connection under way, and the server waiting for the client to read.
    yield* ServerSockets.until("every connection waiting for its client", () => {
      const now = connections()
      for (const connection of now) most = Math.max(most, heldBy(connection))
      return now.every(({ responses, socket }) =>
        socket !== undefined && socket.writableNeedDrain && responses.length === 2 && responses.every((r) => r.headersSent)
      )
    })
    const state = connections()
    // The client really did not take both: the second answer is not finished on any connection (the
    // kernel's buffers of a loopback connection take about 3.9 MB, more than one script).
    expect(state.every(({ responses }) => !responses[1]!.writableFinished)).toBe(true)
    expect({ most, under: most <= BOUND_PER_CONNECTION }).toEqual({ most, under: true })

    // Once the clients go, so does everything the server kept for them.
    for (const client of clients) client.destroy()
    for (const { socket } of state) yield* ServerSockets.closed(socket!)
  }))
