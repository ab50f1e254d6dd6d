/**
 * The raw-socket client: runs one connection's script over node:net and records what came back.
 * Bytes go out exactly as generated, cut into fragments, all at once (pipelined) or each request
 * after the previous answer (sequential); the client's side is half-closed after the last write when
 * the script says so. It waits for every answer owed (see `Due`), then for the server's close where
 * one is owed, and gives up after `deadlineMs` without progress.
 */
import * as Net from "node:net"
import * as Due from "./Due.js"
import type { ConnectionScript } from "./RawRequest.js"
import * as ResponseReader from "./ResponseReader.js"

/**
 * How the connection ended: `done` (every owed answer, and the close where owed), `closed` (the
 * server closed first), `reset` (a socket error: reset, broken pipe), `deadline` (no progress for
 * the deadline), `protocol` (the bytes were not HTTP/1.1 answers), `refused` (no connection).
 *
 * @category models
 */
export type End = "done" | "closed" | "reset" | "deadline" | "protocol" | "refused"

/** @category models */
export interface Outcome {
  readonly answers: ReadonlyArray<ResponseReader.Answer>
  /** Requests whose bytes were all handed to the socket. */
  readonly written: number
  readonly end: End
  /** The socket error's code (`ECONNRESET`, `EPIPE` ...) when there was one. */
  readonly socketError: string | undefined
  readonly protocolError: string | undefined
  readonly interim: number
  readonly durationMs: number
}

/** @category models */
export interface ClientOptions {
  readonly host: string
  readonly port: number
  /** Longest wait without any progress while an answer or a close is owed. */
  readonly deadlineMs: number
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** `bytes` cut at the script's offsets (each taken modulo the length). */
const fragments = (bytes: Uint8Array, cuts: ReadonlyArray<number>): Array<Uint8Array> => {
  if (bytes.length < 2) return [bytes]
  const at = [...new Set(cuts.map((c) => 1 + (c % (bytes.length - 1))))].sort((a, b) => a - b)
  const out: Array<Uint8Array> = []
  let from = 0
  for (const to of at) {
    out.push(bytes.subarray(from, to))
    from = to
  }
  out.push(bytes.subarray(from))
  return out
}

/** Runs `script` on a new connection. @category constructors */
export const run = (script: ConnectionScript, options: ClientOptions): Promise<Outcome> =>
  new Promise((resolve) => {
    const started = performance.now()
    const requests = script.requests
    const answers: Array<ResponseReader.Answer> = []
    const reader = ResponseReader.make((i) => requests[i]?.method)
    const socket = Net.connect({ host: options.host, port: options.port, allowHalfOpen: true, noDelay: true })
    let written = 0
    let socketError: string | undefined
    let serverEnded = false
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let wake: (() => void) | undefined

    const settle = (end: End) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      wake?.()
      resolve({
        answers,
        written,
        end,
        socketError,
        protocolError: reader.error(),
        interim: reader.interim(),
        durationMs: performance.now() - started
      })
    }
    const arm = () => {
      clearTimeout(timer)
      timer = setTimeout(() => settle("deadline"), options.deadlineMs)
    }
    /** Settles once nothing more is owed; wakes the sequential writer. */
    const progress = () => {
      const notify = wake
      wake = undefined
      notify?.()
      if (reader.error() !== undefined) return settle("protocol")
      if (answers.length >= Due.answersDue(script, answers) && (serverEnded || !Due.closeDue(script, answers))) settle("done")
      else if (serverEnded) settle("closed")
    }
    const until = (ready: () => boolean) =>
      new Promise<void>((resume) => {
        const check = () => (settled || ready() ? resume() : (wake = check))
        check()
      })
    /** Writes `bytes`; with `last`, the client's side is closed with them (data and FIN together). */
    const write = (bytes: Uint8Array, last: boolean) =>
      new Promise<void>((resume) => {
        if (settled || socket.destroyed) return resume()
        if (last) {
          socket.end(bytes, () => resume())
          return
        }
        if (socket.write(bytes)) return resume()
        const done = () => {
          socket.off("drain", done).off("close", done)
          resume()
        }
        socket.on("drain", done).on("close", done)
      })
    /**
     * Sends `bytes`; `sent(n)` is told how many of them are out after each fragment. With `last`, the
     * final fragment half-closes the connection if the script says so.
     */
    const send = async (bytes: Uint8Array, sent: (n: number) => void, last: boolean) => {
      let out = 0
      const parts = fragments(bytes, script.cuts)
      for (const [i, fragment] of parts.entries()) {
        if (settled) return
        if (out > 0 && script.pauseMs > 0) await sleep(script.pauseMs)
        await write(fragment, last && script.halfClose && i === parts.length - 1)
        if (settled || socket.destroyed) return
        out += fragment.length
        sent(out)
        arm()
      }
    }

    socket.on("data", (chunk: Buffer) => {
      arm()
      answers.push(...reader.push(chunk))
      progress()
    })
    socket.on("end", () => {
      serverEnded = true
      answers.push(...reader.end())
      progress()
    })
    socket.on("error", (error: NodeJS.ErrnoException) => {
      socketError ??= error.code ?? error.message
    })
    socket.on("close", () => {
      if (!serverEnded) answers.push(...reader.end())
      settle(socketError === "ECONNREFUSED" ? "refused" : socketError !== undefined ? "reset" : reader.error() !== undefined ? "protocol" : "closed")
    })
    socket.on("connect", async () => {
      arm()
      if (script.delivery === "pipelined") {
        let end = 0
        const ends = requests.map((r) => (end += r.bytes.length))
        await send(Buffer.concat(requests.map((r) => r.bytes)), (n) => {
          while (written < ends.length && ends[written]! <= n) written++
        }, true)
      } else {
        for (let i = 0; i < requests.length; i++) {
          // The next request goes out once the previous one is answered, while the connection is owed answers.
          await until(() => answers.length >= i)
          if (settled || i >= Due.answersDue(script, answers)) break
          const length = requests[i]!.bytes.length
          await send(requests[i]!.bytes, (n) => {
            if (n === length) written = i + 1
          }, i === requests.length - 1)
        }
      }
      arm()
    })
  })
