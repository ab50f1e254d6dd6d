/** How values are written on the page: times in UTC, absent values as a dash. */

/** An ISO 8601 time as `YYYY-MM-DD HH:MM:SS UTC`, or "—" when there is none. */
export const time = (iso: string | null | undefined): string =>
  iso === null || iso === undefined || iso === "" ? "—" : `${iso.slice(0, 19).replace("T", " ")} UTC`

/** A value or "—". */
export const orDash = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === "" ? "—" : String(value)
