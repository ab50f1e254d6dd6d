/**
 * The bounds a server's connections are held to, and their defaults. The default cap on
 * connections follows the process's limit on open files, so that the stores and logs keep theirs.
 *
 * @internal
 */
import * as Fs from "node:fs"

/** The limits on the connections and their requests that the server holds at once. */
export interface ConnectionLimits {
  /** Connections held at once; a new one past it gets 503 `unavailable` and is closed. */
  readonly maxConnections: number
  /** Requests of one connection being answered at once. */
  readonly maxInFlight: number
  /** Bytes of one connection's answers waiting for the client to read them, past which no new request of it starts. */
  readonly maxBufferedBytes: number
  /** How long a connection the server closes is still read from (what arrives is dropped). */
  readonly lingerMillis: number
}

/** The soft limit on open files of this process, where the system tells it (Linux). */
export const openFileLimit = (limits = "/proc/self/limits"): number | undefined => {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(Fs.readFileSync(limits, "utf8"))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** Files kept for everything but connections: stores, logs, the listening socket. */
export const RESERVED_FILES = 128

/** The most connections a process that may open `files` files holds (at least one). */
export const connectionCap = (files: number | undefined): number => Math.max(1, Math.min(10_000, (files ?? Infinity) - RESERVED_FILES))

/**
 * The defaults: 10,000 connections (fewer when the process may open fewer files), 16 requests of a
 * connection at once, 64 KiB of unread answers, 2 s of lingering.
 */
export const defaults = (): ConnectionLimits => ({
  maxConnections: connectionCap(openFileLimit()),
  maxInFlight: 16,
  maxBufferedBytes: 64 * 1024,
  lingerMillis: 2_000
})
