/**
 * A time-series chart (uPlot, drawn on a canvas) and, below it, the same numbers as a table: what
 * the chart shows is readable without seeing it, and tests read the table. Stacked: each series is
 * drawn on top of the ones before it (the areas add up to the total). A limit, when given, is drawn
 * as a dashed line.
 */
import { useEffect, useRef } from "preact/hooks"
import uPlot from "uplot"
import type { Series } from "../series.js"


/** Props of Chart. */
export interface ChartProps {
  readonly title: string
  /** The start of each bucket, ISO 8601. */
  readonly starts: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
  readonly stacked?: boolean
  readonly limit?: { readonly label: string; readonly value: number } | undefined
  /** The table's id, for tests and links. */
  readonly id: string
}

const cumulative = (series: ReadonlyArray<Series>): Array<Array<number>> => {
  const sums: Array<Array<number>> = []
  series.forEach((s, i) => sums.push(s.values.map((v, j) => v + (i === 0 ? 0 : sums[i - 1]![j]!))))
  return sums
}

const plotData = (props: ChartProps): uPlot.AlignedData => {
  const xs = props.starts.map((start) => Date.parse(start) / 1000)
  const ys = props.stacked ? cumulative(props.series) : props.series.map((s) => [...s.values])
  // Stacked areas are drawn from the top one down, each filled to zero, so each shows its own band.
  const ordered = props.stacked ? ys.reverse() : ys
  const limit = props.limit ? [xs.map(() => props.limit!.value)] : []
  return [xs, ...ordered, ...limit]
}

const plotSeries = (props: ChartProps): Array<uPlot.Series> => {
  const series = props.stacked ? [...props.series].reverse() : props.series
  const drawn: Array<uPlot.Series> = series.map((s) => ({
    label: s.label,
    stroke: s.color,
    width: 1.5,
    ...(props.stacked ? { fill: s.color } : {})
  }))
  if (props.limit) drawn.push({ label: props.limit.label, stroke: "#b00020", width: 2, dash: [8, 6] })
  return [{}, ...drawn]
}

/** The chart and its table. */
export const Chart = (props: ChartProps) => {
  const holder = useRef<HTMLDivElement>(null)
  useEffect(() => {
    const element = holder.current
    if (element === null) return
    const plot = new uPlot({
      width: Math.max(320, element.clientWidth),
      height: 260,
      series: plotSeries(props),
      axes: [{ stroke: "#222" }, { stroke: "#222", size: 72 }],
      legend: { show: true }
    }, plotData(props), element)
    return () => plot.destroy()
  }, [props.starts, props.series, props.limit?.value, props.stacked])
  return (
    <figure class="chart">
      <div ref={holder} class="plot" role="img" aria-label={`${props.title}: chart; the numbers are in the table below`} />
      <figcaption>{props.title}</figcaption>
      <details>
        <summary>Numbers</summary>
        <table id={props.id} class="numbers">
          <caption>{props.title}</caption>
          <thead>
            <tr>
              <th scope="col">Start (UTC)</th>
              {props.series.map((s) => <th scope="col" key={s.label}>{s.label}</th>)}
            </tr>
          </thead>
          <tbody>
            {props.starts.map((start, i) => (
              <tr key={start} data-start={start}>
                <th scope="row">{start}</th>
                {props.series.map((s) => <td key={s.label} data-series={s.label}>{s.values[i]}</td>)}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      {props.limit ? <p class="limit">{`${props.limit.label}: ${props.limit.value}`}</p> : null}
    </figure>
  )
}
