/**
 * A table's columns, each with the field of the domain record it holds. Read under the fields'
 * names (`selectList`), a row is the record itself: no row shape, and a table's column list is
 * written once, for its store's statements and the export alike.
 */

/** A column, the field it holds, and `"optional"` when the record may leave the field out (stored NULL). */
export type Column<A> = readonly [column: string, field: keyof A & string, optional?: "optional"]

/** The columns read under their fields' names (`category_id AS "categoryId"`). */
export const selectList = <A>(columns: ReadonlyArray<Column<A>>): string =>
  columns.map(([column, field]) => (column === field ? column : `${column} AS "${field}"`)).join(", ")

/** The columns' names, for an INSERT. */
export const names = <A>(columns: ReadonlyArray<Column<A>>): string => columns.map(([column]) => column).join(", ")

/** One `?` per column, for an INSERT's VALUES. */
export const placeholders = <A>(columns: ReadonlyArray<Column<A>>): string => columns.map(() => "?").join(", ")

/**
 * `record`'s values in the columns' order; a field the record leaves out is stored as NULL (the
 * driver refuses `undefined`).
 */
export const values = <A>(columns: ReadonlyArray<Column<A>>, record: A): Array<unknown> =>
  columns.map(([, field]) => record[field] ?? null)

/**
 * Makes rows read with `selectList` records: an optional field stored as NULL is left out, as the
 * record had it. Changes the rows in place and answers them (nothing to do without optional fields).
 */
export const complete = <A>(columns: ReadonlyArray<Column<A>>) => {
  const optional = columns.filter(([, , o]) => o === "optional").map(([, field]) => field)
  return <R extends ReadonlyArray<unknown>>(rows: R): R => {
    if (optional.length === 0) return rows
    for (const row of rows as ReadonlyArray<Record<string, unknown> | undefined>) {
      for (const field of optional) if (row?.[field] === null) delete row[field]
    }
    return rows
  }
}
