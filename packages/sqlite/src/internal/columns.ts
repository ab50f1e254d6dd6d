/**
 * A table's columns, each with the field of the domain record it holds. Read under the fields'
 * names (`selectList`), a row is the record itself: no row shape, and a table's column list is
 * written once, for its store's statements and the export alike.
 */

/** A column and the field it holds. */
export type Column<A> = readonly [column: string, field: keyof A & string]

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
