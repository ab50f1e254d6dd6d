/**
 * What a long command shows while it runs, on standard error: on a terminal one live line, redrawn a
 * few times a second; otherwise (a CI log, a file) a line every few seconds, so a reader of the log
 * sees the run is alive and how far it got. Other lines (`log`) go above the live line.
 */

export interface ProgressStream {
  readonly write: (text: string) => unknown
  readonly isTTY?: boolean | undefined
  readonly columns?: number | undefined
}

export interface Progress {
  /** The run's state now, in words (shown at the next tick, with the seconds since the start). */
  readonly set: (text: string) => void
  /** A line of its own, kept in the output. */
  readonly log: (line: string) => void
  /** Stops showing the state (the live line is cleared). */
  readonly end: () => void
}

export interface ProgressOptions {
  /** Off a terminal: how often a line is written (default 5 s). */
  readonly everyMs?: number | undefined
  /** On a terminal: how often the line is redrawn (default 250 ms). */
  readonly redrawMs?: number | undefined
}

const CLEAR_LINE = "\r\u001b[2K"

/** @category constructors */
export const start = (stream: ProgressStream, options: ProgressOptions = {}): Progress => {
  const live = stream.isTTY === true
  const started = performance.now()
  let text: string | undefined
  let shown = false
  const draw = () => {
    if (text === undefined) return
    const line = `${text}, ${((performance.now() - started) / 1000).toFixed(0)} s`
    if (live) {
      const width = Math.max(20, (stream.columns ?? 80) - 1)
      stream.write(`${CLEAR_LINE}${line.length > width ? `${line.slice(0, width - 1)}…` : line}`)
      shown = true
    } else {
      stream.write(`${line}\n`)
    }
  }
  const timer = setInterval(draw, live ? options.redrawMs ?? 250 : options.everyMs ?? 5_000)
  // The run ends the process, not the timer.
  timer.unref()
  const clear = () => {
    if (shown) stream.write(CLEAR_LINE)
    shown = false
  }
  return {
    set: (next) => void (text = next),
    log: (line) => {
      clear()
      stream.write(`${line}\n`)
      if (live) draw()
    },
    end: () => {
      clearInterval(timer)
      clear()
    }
  }
}
