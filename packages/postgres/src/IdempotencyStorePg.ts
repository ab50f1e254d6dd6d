/**
 * `IdempotencyStore` on PostgreSQL, shared by every instance. The primary key (account, key) is
 * the lock: a keyed create inserts its record and its pet or message in one statement, and a
 * second insert of the same key, from any connection or instance, waits for the first statement's
 * transaction, then finds the key taken (`ON CONFLICT`) and writes nothing. An expired record is
 * taken over by the insert (`DO UPDATE … WHERE expires_at <= now`), so an expired key is new again
 * whether or not the sweep has removed it.
 *
 * Keyed creates that arrive together are sent as one statement (`WriteBatcher`), as un-keyed ones
 * are. Within a batch a key is claimed once (later requests with it are answered from the first's
 * record), and keys are claimed in one fixed order on every instance, so two batches never wait
 * for each other in a cycle. A pet statement takes its ids first (as un-keyed inserts do), an id
 * per claim it tries; the ids of claims that found their key taken are left unused.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { type Errors, IdempotencyStore, type MessageStore, type Pet, type PetRepository } from "@petstore/core"
import { Database, statement } from "./Database.js"
import * as Table from "./internal/table.js"
import { MESSAGES } from "./MessageStorePg.js"
import { draftArrays, draftValues, insertPets, stored, takeIds } from "./PetRepositoryPg.js"
import * as WriteBatcher from "./WriteBatcher.js"

/** The columns of `idempotency_keys`, each with the `IdempotencyRecord` field it holds. */
const RECORD_COLUMNS: ReadonlyArray<Table.Column<IdempotencyStore.IdempotencyRecord>> = [
  ["account_id", "text", "accountId"],
  ["key", "text", "key"],
  ["operation", "text", "operation"],
  ["fingerprint", "text", "fingerprint"],
  ["resource_id", "text", "resourceId"],
  ["created_at", "int8", "createdAt"],
  ["expires_at", "int8", "expiresAt"]
]
const COLUMNS = Table.names(RECORD_COLUMNS)
const RECORD = Table.selectList(RECORD_COLUMNS)
const MESSAGE_COLUMNS = Table.names(MESSAGES.columns)

// The claim of each key of a batch, taking over expired records; answers the keys it claimed.
const claim = (resourceId: string) =>
  `INSERT INTO idempotency_keys (${COLUMNS})
   SELECT i.account_id, i.key, i.operation, i.fingerprint, ${resourceId}, i.created_at, i.expires_at FROM input i ORDER BY i.n
   ON CONFLICT (account_id, key) DO UPDATE SET operation = excluded.operation, fingerprint = excluded.fingerprint,
     resource_id = excluded.resource_id, created_at = excluded.created_at, expires_at = excluded.expires_at
   WHERE idempotency_keys.expires_at <= excluded.created_at
   RETURNING account_id, key, resource_id`

const drafts = draftArrays(7)
// $1 accounts, $2 keys, $3 operations, $4 fingerprints, $5 request times, $6 expiries, then the drafts' columns.
const INSERT_PETS = statement(`
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::int8[], ${drafts.arrays})
      WITH ORDINALITY AS d(account_id, key, operation, fingerprint, created_at, expires_at, ${drafts.names}, n)
  ),
  ${takeIds("cardinality($1::text[])")},
  claimed AS (${claim("(SELECT ids FROM taken)[i.n]")}),
  inserted AS (${insertPets("c.resource_id::int8", "i", "claimed c JOIN input i USING (account_id, key)", "c.resource_id::int8")})
  SELECT account_id, key, resource_id FROM claimed`)

// $1..$6 as for pets, then the messages' columns from $7.
const INSERT_MESSAGES = statement(`
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int8[], $6::int8[], $7::text[], $8::text[], $9::text[],
      $10::int8[], $11::int4[], $12::int8[], $13::int8[], $14::text[])
      WITH ORDINALITY AS d(account_id, key, operation, fingerprint, created_at, expires_at, id, message, status, updated_at, attempts,
        available_at, lease_until, last_error, n)
  ),
  claimed AS (${claim("i.id")}),
  inserted AS (
    INSERT INTO messages (${MESSAGE_COLUMNS})
    SELECT ${MESSAGE_COLUMNS} FROM claimed c JOIN input i USING (account_id, key) ORDER BY i.n
  )
  SELECT account_id, key, resource_id FROM claimed`)

const BY_KEY = statement(`SELECT ${RECORD} FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND expires_at > $3`)
const BY_KEYS = statement(
  `SELECT ${RECORD} FROM idempotency_keys JOIN unnest($1::text[], $2::text[]) AS q(account_id, key) USING (account_id, key)
   WHERE expires_at > $3`
)
// Rows a claim holds (taking an expired key over) are skipped, so the sweep never waits for a claim
// and the two never wait for each other.
const SWEEP = statement(
  `WITH removed AS (
     DELETE FROM idempotency_keys
     WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING 1)
   SELECT count(*)::int AS removed FROM removed`
)

interface Keyed<I> {
  readonly request: IdempotencyStore.KeyedRequest
  readonly item: I
}

interface Claimed {
  readonly account_id: string
  readonly key: string
  readonly resource_id: string
}

const byKey = (a: Keyed<unknown>, b: Keyed<unknown>): number => {
  const x = a.request
  const y = b.request
  return x.accountId < y.accountId ? -1 : x.accountId > y.accountId ? 1 : x.key < y.key ? -1 : x.key > y.key ? 1 : 0
}

/** The idempotency store on PostgreSQL. @category constructors */
export const make = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Effect.Effect<IdempotencyStore.IdempotencyStore["Service"], never, Database> =>
  Effect.map(Database, (db) => {
    /**
     * A batch's claims: the first request of each key is sent (in key order) by `send`; each
     * request is then answered its created value, or the record its key already had (read once
     * the statement committed, so a record another transaction wrote meanwhile is seen).
     */
    const commit = <I, A>(
      send: (firsts: ReadonlyArray<Keyed<I>>) => Effect.Effect<Array<Claimed>, Errors.StoreUnavailable>,
      created: (first: Keyed<I>, resourceId: string) => A
    ) =>
    (batch: ReadonlyArray<Keyed<I>>) => {
      const firsts = new Map<string, Keyed<I>>()
      for (const keyed of batch) {
        const id = IdempotencyStore.recordKey(keyed.request.accountId, keyed.request.key)
        if (!firsts.has(id)) firsts.set(id, keyed)
      }
      const sent = [...firsts.values()].sort(byKey)
      const now = Math.max(...sent.map((k) => k.request.now))
      return Effect.flatMap(send(sent), (rows) => {
        const taken = new Map(rows.map((row) => [IdempotencyStore.recordKey(row.account_id, row.key), row.resource_id]))
        const others = sent.filter((k) => !taken.has(IdempotencyStore.recordKey(k.request.accountId, k.request.key)))
        const records = others.length === 0
          ? Effect.succeed(new Map<string, IdempotencyStore.IdempotencyRecord>())
          : Effect.map(
            db.query<IdempotencyStore.IdempotencyRecord>(BY_KEYS, [others.map((k) => k.request.accountId), others.map((k) => k.request.key), now]),
            (found) => new Map(found.map((record) => [IdempotencyStore.recordKey(record.accountId, record.key), record]))
          )
        return Effect.map(records, (existing) =>
          batch.map((keyed): IdempotencyStore.Claim<A> => {
            const id = IdempotencyStore.recordKey(keyed.request.accountId, keyed.request.key)
            const first = firsts.get(id)!
            const resourceId = taken.get(id)
            if (resourceId !== undefined) {
              return first === keyed
                ? { _tag: "Created", value: created(keyed, resourceId) }
                : { _tag: "Completed", record: IdempotencyStore.toRecord(first.request, resourceId) }
            }
            const record = existing.get(id)
            // Taken, yet no live record: it expired in the meantime; the client retries.
            return record === undefined ? { _tag: "InProgress" } : { _tag: "Completed", record }
          }))
      })
    }

    const keyColumns = (sent: ReadonlyArray<Keyed<unknown>>) => [
      sent.map((k) => k.request.accountId),
      sent.map((k) => k.request.key),
      sent.map((k) => k.request.operation),
      sent.map((k) => k.request.fingerprint),
      sent.map((k) => k.request.now),
      sent.map((k) => k.request.expiresAt)
    ]

    const pets = WriteBatcher.make<Keyed<PetRepository.PetDraft>, IdempotencyStore.Claim<Pet.Pet>>(
      commit(
        (sent) =>
          db.query<Claimed>(INSERT_PETS, [...keyColumns(sent), ...draftValues(sent.map((k) => k.item))]),
        (first, resourceId) => stored(Number(resourceId), first.item)
      ),
      options
    )
    const messages = WriteBatcher.make<Keyed<MessageStore.StoredMessage>, IdempotencyStore.Claim<MessageStore.StoredMessage>>(
      commit(
        (sent) =>
          db.query<Claimed>(INSERT_MESSAGES, [
            ...keyColumns(sent),
            sent.map((k) => k.item.id),
            sent.map((k) => k.item.message),
            sent.map((k) => k.item.status),
            sent.map((k) => k.item.updatedAt),
            sent.map((k) => k.item.attempts),
            sent.map((k) => k.item.availableAt),
            sent.map((k) => k.item.leaseUntil),
            sent.map((k) => k.item.lastError)
          ]),
        (first) => first.item
      ),
      options
    )

    return IdempotencyStore.IdempotencyStore.of({
      find: (accountId, key, now) =>
        Effect.map(db.query<IdempotencyStore.IdempotencyRecord>(BY_KEY, [accountId, key, now]), (rows) => Option.fromNullishOr(rows[0])),
      insertPet: (request, draft) => pets.write({ request, item: draft }),
      insertMessage: (request, message) => messages.write({ request, item: message }),
      sweep: (now, limit) => Effect.map(db.query<{ removed: number }>(SWEEP, [now, limit]), (rows) => rows[0]?.removed ?? 0)
    })
  })

/** The idempotency store on PostgreSQL, as a layer. @category layers */
export const layer = (
  options: Partial<WriteBatcher.WriteBatcherOptions> = {}
): Layer.Layer<IdempotencyStore.IdempotencyStore, never, Database> => Layer.effect(IdempotencyStore.IdempotencyStore, make(options))
