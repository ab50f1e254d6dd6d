/** A reader of the Prometheus text format, enough to check what `/metrics` serves. */

export interface PromSample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

/** Every sample of `text`; throws on a line that is neither a comment nor a sample. */
export const parse = (text: string): Array<PromSample> =>
  text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).map((line) => {
    const match = SAMPLE.exec(line)
    if (match === null) throw new Error(`not a Prometheus sample: ${line}`)
    const labels: Record<string, string> = {}
    for (const [, name, value] of (match[2] ?? "").matchAll(LABEL)) labels[name!] = value!.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c))
    // As Prometheus reads them (Go's ParseFloat): NaN in any case (prom-client writes "Nan"), ±Inf.
    const raw = match[3]!
    const value = /^nan$/i.test(raw) ? NaN : raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : Number(raw)
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`not a number: ${line}`)
    return { name: match[1]!, labels, value }
  })

/** The value of the one sample named `name` whose labels include `labels` (0 when absent). */
export const value = (samples: ReadonlyArray<PromSample>, name: string, labels: Record<string, string> = {}): number => {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`)
  return found[0]?.value ?? 0
}

/** The `# TYPE` of each metric family in `text`. */
export const types = (text: string): Record<string, string> =>
  Object.fromEntries(text.split("\n").flatMap((line) => {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line)
    return m === null ? [] : [[m[1]!, m[2]!]]
  }))
