/**
 * A table's columns, each with its type and how a domain record fills it: the one list of each
 * table that its store's statements and `Import` share. A column named after a field of the record
 * (`["category_id", "int8", "categoryId"]`) is also read under that field's name (`selectList`), so
 * a row read with it is the record itself.
 */
import type { Client } from "../Database.js"

/** A column, its type (for `unnest`'s arrays) and the field of `A` it holds, or how to compute it. */
export type Column<A> = readonly [column: string, type: string, field: (keyof A & string) | ((a: A) => unknown)]

export interface Table<A> {
  readonly name: string
  readonly columns: ReadonlyArray<Column<A>>
}

/** The value `record` gives `column`. */
export const valueOf = <A>([, , field]: Column<A>, record: A): unknown =>
  typeof field === "function" ? field(record) : record[field] ?? null

/** The columns' names, comma-separated. */
export const names = <A>(columns: ReadonlyArray<Column<A>>): string => columns.map(([column]) => column).join(", ")

/** The columns read under their fields' names (`category_id AS "categoryId"`). */
export const selectList = <A>(columns: ReadonlyArray<Column<A>>): string =>
  columns.map(([column, , field]) =>
    typeof field === "function" || field === column ? column : `${column} AS "${field}"`
  ).join(", ")

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
