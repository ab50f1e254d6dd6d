/**
 * A table's columns, each with its type and how a domain record fills it: the one list of each
 * table that its store's statements and `Import` share. A column named after a field of the record
 * (`["category_id", "int8", "categoryId"]`) is also read under that field's name (`selectList`), so
 * a row read with it is the record itself.
 */
import type { Client } from "../Database.js"

/**
 * A column, its type (for `unnest`'s arrays), the field of `A` it holds (or how to compute it), and
 * `"optional"` when the record may leave the field out (stored NULL).
 */
export type Column<A> = readonly [
  column: string,
  type: string,
  field: (keyof A & string) | ((a: A) => unknown),
  optional?: "optional"
]

export interface Table<A> {
  readonly name: string
  readonly columns: ReadonlyArray<Column<A>>
}

/** The value `record` gives `column`. */
export const valueOf = <A>([, , field]: Column<A>, record: A): unknown =>
  typeof field === "function" ? field(record) : record[field] ?? null

/** `record`'s values in the columns' order, for an INSERT of one row. */
export const rowValues = <A>(columns: ReadonlyArray<Column<A>>, record: A): Array<unknown> =>
  columns.map((column) => valueOf(column, record))

/** One parameter per column, from `$1` on, for an INSERT's VALUES. */
export const parameters = <A>(columns: ReadonlyArray<Column<A>>): string => columns.map((_, i) => `$${i + 1}`).join(", ")

/** The columns' names, comma-separated. */
export const names = <A>(columns: ReadonlyArray<Column<A>>): string => columns.map(([column]) => column).join(", ")

/** The columns (of the relation `from`, if given) read under their fields' names (`category_id AS "categoryId"`). */
export const selectList = <A>(columns: ReadonlyArray<Column<A>>, from?: string): string =>
  columns.map(([column, , field]) => {
    const source = from === undefined ? column : `${from}.${column}`
    return typeof field === "function" || field === column ? source : `${source} AS "${field}"`
  }).join(", ")

/** `unnest`'s arguments for the columns, from parameter `$first` on (`$1::text[], $2::int8[]`). */
export const arrays = <A>(columns: ReadonlyArray<Column<A>>, first = 1): string =>
  columns.map(([, type], i) => `$${first + i}::${type}[]`).join(", ")

/** The parameters of `arrays`: one array per column, of `rows`' values. */
export const columnValues = <A>(columns: ReadonlyArray<Column<A>>, rows: ReadonlyArray<A>): Array<Array<unknown>> =>
  columns.map((column) => rows.map((row) => valueOf(column, row)))

/** Inserts every row of `rows` in one statement, in their order (messages keep theirs in `seq`). */
export const insertAll = async <A>(client: Client, table: Table<A>, rows: ReadonlyArray<A>): Promise<void> => {
  if (rows.length === 0) return
  const columns = names(table.columns)
  await client.query(
    `INSERT INTO ${table.name} (${columns}) SELECT ${columns} FROM unnest(${arrays(table.columns)}) WITH ORDINALITY AS t(${columns}, n) ORDER BY n`,
    columnValues(table.columns, rows)
  )
}

/**
 * Makes rows read with `selectList` records: an optional field stored as NULL is left out, as the
 * record had it. Changes the rows in place and answers them (nothing to do without optional fields).
 */
export const complete = <A>(columns: ReadonlyArray<Column<A>>) => {
  const optional = columns.flatMap(([, , field, o]) => (o === "optional" && typeof field === "string" ? [field] : []))
  return <R extends ReadonlyArray<unknown>>(rows: R): R => {
    if (optional.length === 0) return rows
    for (const row of rows as ReadonlyArray<Record<string, unknown>>) {
      for (const field of optional) if (row[field] === null) delete row[field]
    }
    return rows
  }
}
