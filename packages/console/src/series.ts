/** One series of a chart: its label, its colour and a value per bucket. */
export interface Series {
  readonly label: string
  readonly color: string
  readonly values: ReadonlyArray<number>
}
