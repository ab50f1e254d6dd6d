/**
 * `PetRepository` on PostgreSQL, shared by every instance.
 *
 * Keyset pagination (`id > cursor`) is exact only if a pet never becomes visible behind a cursor a
 * reader already passed. Ids from a sequence alone break that: a transaction can take id 4, another
 * id 5 and commit first, and a reader that saw 5 has paged past 4 before 4 appears. Two ways of
 * taking ids keep it exact, both behind one function of the schema (`petstore_take_pet_ids`,
 * migration 11), and every listing reads through `petstore_list_pets`, which serves both:
 *
 * - **The counter row** (`pet_ids`), taken by the insert and held until it commits: inserts from
 *   every connection and instance commit one after the other, each batch through its own WAL flush.
 *   Databases made before migration 11 keep it until an operator runs `petstore pet-ids --concurrent`.
 * - **Concurrent ids** (new databases, and after that switch): ids from a sequence, each insert first
 *   holding a shared advisory lock keyed by a value below every id it takes; a listing reads ids only
 *   up to the lowest such key still held (the frontier), and a page cut short by it waits for those
 *   inserts to end. Inserts no longer wait for each other (docs/storage.md, *Concurrent pet ids*).
 *
 * Either way, once a page was served past an id, no lower id can appear later, and a full page never
 * changes (which lets the Pets service keep it). Each instance sends its concurrent inserts as one
 * statement (`WriteBatcher`).
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Errors, type Pet, PetRepository } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as Table from "./internal/table.js"
import * as WriteBatcher from "./WriteBatcher.js"

/** The columns of `pets` a draft fills, each with its type and the `Pet` field it holds. */
const DRAFT_COLUMNS: ReadonlyArray<Table.Column<PetRepository.PetDraft>> = [
  ["name", "text", "name"],
  ["category_id", "int8", "categoryId"],
  ["status", "text", "status"]
]

/** `pets`, every column: what its reads select, and what `Import` writes. */
export const PETS: Table.Table<Pet.Pet> = { name: "pets", columns: [["id", "int8", "id"], ...DRAFT_COLUMNS] }

/** The pets of rows read with `PETS`' columns (changed in place). */
export const readPets: <R extends ReadonlyArray<unknown>>(rows: R) => R = Table.complete(PETS.columns)

/** The drafts' columns as `unnest`'s arguments from parameter `$first` on, and their names in order. */
export const draftArrays = (first: number) => ({ arrays: Table.arrays(DRAFT_COLUMNS, first), names: Table.names(DRAFT_COLUMNS) })

/** The drafts' values for `draftArrays`, one array per column. */
export const draftValues = (drafts: ReadonlyArray<PetRepository.PetDraft>) => Table.columnValues(DRAFT_COLUMNS, drafts)

/** The CTE `taken`: takes `count` ids for this transaction (`petstore_take_pet_ids`); `ids`, in increasing order. */
export const takeIds = (count: string) => `taken AS (SELECT petstore_take_pet_ids(${count}::int4) AS ids)`

/**
 * The one insert of pets (a batch of the repository's, or of keyed creates): each draft of `from`,
 * whose columns `alias` names, stored under the id `id` gives it, in `order`.
 */
export const insertPets = (id: string, alias: string, from: string, order: string) =>
  `INSERT INTO pets (id, ${Table.names(DRAFT_COLUMNS)})
   SELECT ${id}, ${DRAFT_COLUMNS.map(([column]) => `${alias}.${column}`).join(", ")} FROM ${from} ORDER BY ${order}`

/** The stored pet of `draft` under `id`. */
export const stored = (id: number, draft: PetRepository.PetDraft): Pet.Pet => ({ id: id as Pet.PetId, ...draft })

const drafts = draftArrays(1)
// One statement per batch: take `n` ids and insert the batch under them, in its order.
const INSERT_BATCH = statement(`
  WITH ${takeIds(`cardinality($1::${DRAFT_COLUMNS[0]![1]}[])`)},
  inserted AS (${insertPets("taken.ids[d.n]", "d", `taken, unnest(${drafts.arrays}) WITH ORDINALITY AS d(${drafts.names}, n)`, "d.n")})
  SELECT ids FROM taken`)
const COLUMNS = Table.selectList(PETS.columns)
// $1 after, $2 limit, $3 status or null.
const PAGE = statement(`SELECT ${COLUMNS} FROM petstore_list_pets($1, $2, $3)`)
const BY_ID = statement(`SELECT ${COLUMNS} FROM pets WHERE id = $1`)

/** The pet repository on PostgreSQL. @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<PetRepository.PetRepository["Service"], never, Database> =>
  Effect.map(Database, (db) => {
    const inserts = WriteBatcher.make<PetRepository.PetDraft, Pet.Pet>(
      (batch) =>
        Effect.flatMap(
          db.query<{ ids: ReadonlyArray<string | number> }>(INSERT_BATCH, draftValues(batch)),
          ([row]) =>
            row === undefined || row.ids.length !== batch.length
              ? Effect.fail(new Errors.StoreUnavailable({ cause: new Error("the pet ids taken do not match the batch; nothing was inserted") }))
              : Effect.succeed(batch.map((draft, i) => stored(Number(row.ids[i]), draft)))
        ),
      options
    )
    return PetRepository.PetRepository.of({
      insert: inserts.write,
      // No operation changes a stored pet, so nothing is announced (see `PetRepository.onChange`).
      onChange: PetRepository.changeListeners().onChange,
      // Full pages are kept by the Pets service (they never change), so this runs for the others.
      listAfter: ({ afterId, limit, status }) =>
        Effect.map(db.query<Pet.Pet>(PAGE, [afterId, limit, Option.getOrNull(status)]), readPets),
      findById: (id) => Effect.map(db.query<Pet.Pet>(BY_ID, [id]), (rows) => Option.fromNullishOr(readPets(rows)[0]))
    })
  })

/** The pet repository on PostgreSQL, as a layer. @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<PetRepository.PetRepository, never, Database> => Layer.effect(PetRepository.PetRepository, make(options))
