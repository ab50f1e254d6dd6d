/** The record kept for each connection (src/internal/hosts/connections/connection.ts). */
import { describe, expect, it } from "vitest"
import type * as Http from "node:http"
import * as Net from "node:net"
import * as Connection from "../../src/internal/hosts/connections/connection.js"
import * as NodeInternals from "../../src/internal/hosts/nodeInternals.js"

/** A response as node leaves it once its header block is written. */
const written = (header: string | null, req = {} as Http.IncomingMessage) => ({ _header: header, req }) as unknown as Http.ServerResponse

describe("the connection record", () => {
  it("is found from its socket once attached, and from no other", () => {
    const socket = new Net.Socket()
    expect(Connection.connectionOf(socket)).toBeUndefined()
    const connection = Connection.attach(socket)
    expect(Connection.connectionOf(socket)).toBe(connection)
    expect(connection).toMatchObject({ socket, running: [], held: [], closing: false, lastRequestSeen: false })
    expect(Connection.connectionOf(new Net.Socket())).toBeUndefined()
  })

  it("no request read is carried out once closing, after an error answer, or after a request that closes", () => {
    const fresh = () => Connection.attach(new Net.Socket())
    expect(Connection.endsBeforeMore(fresh())).toBe(false)
    expect(Connection.endsBeforeMore(Object.assign(fresh(), { closing: true }))).toBe(true)
    expect(Connection.endsBeforeMore(Object.assign(fresh(), { lastAnswer: "HTTP/1.1 400 ..." }))).toBe(true)
    expect(Connection.endsBeforeMore(Object.assign(fresh(), { lastRequestSeen: true }))).toBe(true)
  })

  it("an answer closes the connection when its header block says Connection: close, in any case", () => {
    expect(Connection.closes(written("HTTP/1.1 200 OK\r\nconnection:close\r\n\r\n"))).toBe(true)
    expect(Connection.closes(written("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"))).toBe(true)
    expect(Connection.closes(written("HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n\r\n"))).toBe(false)
    expect(Connection.closes(written("HTTP/1.1 200 OK\r\nX-Note: connection: close\r\n\r\n"))).toBe(false)
    expect(Connection.closes(written(null))).toBe(false)
  })

  it("a refused body is one handed in before it arrived whole", () => {
    const request = {} as Http.IncomingMessage
    expect(Connection.refusedBody(written(null, request))).toBe(false)
    NodeInternals.markHandedInIncomplete(request)
    expect(Connection.refusedBody(written(null, request))).toBe(true)
  })

  it("dropping what is held takes the hold's weight off node's count once", () => {
    const connection = Connection.attach(new Net.Socket())
    const deltas: Array<number> = []
    connection.held = [{} as Http.IncomingMessage, {} as Http.ServerResponse]
    connection.release = (delta) => deltas.push(delta)
    Connection.dropHeld(connection)
    Connection.dropHeld(connection)
    expect(connection.held).toEqual([])
    expect(connection.release).toBeUndefined()
    expect(deltas).toEqual([-Connection.HOLD_WEIGHT])
  })
})
