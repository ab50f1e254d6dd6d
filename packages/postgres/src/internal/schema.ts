/**
 * The schema's migrations, in order: the text `Migrations` applies. Never edit a released migration:
 * add a new one.
 */

/** A migration: its number, its name and its statements. */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<string>
  /** Set only when older programs cannot work with the schema once this is applied (default: additive). */
  readonly requiresProgram?: number | undefined
  /**
   * Run outside the migration transaction, under a session-level lock of its own, recorded once it
   * succeeded: for `CREATE INDEX CONCURRENTLY … IF NOT EXISTS` (docs/storage.md says when).
   */
  readonly outsideTransaction?: true | undefined
}

/** Every migration, by number. */
export const SCHEMA: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "initial",
    statements: [
      `CREATE TABLE pets (
        id bigint PRIMARY KEY,
        name text NOT NULL,
        category_id bigint NOT NULL,
        status text NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
      )`,
      `CREATE INDEX pets_by_status ON pets (status, id)`,
      // The last pet id handed out. Inserts take ids from this row, whose lock they hold until they
      // commit, so ids become visible in the order they were handed out (see PetRepositoryPg).
      `CREATE TABLE pet_ids (only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row), last bigint NOT NULL)`,
      `INSERT INTO pet_ids (only_row, last) VALUES (true, 0)`,
      `CREATE TABLE accounts (
        id text PRIMARY KEY,
        plan text NOT NULL,
        per_minute integer NOT NULL,
        per_day integer NOT NULL,
        created_at bigint NOT NULL
      )`,
      // Only the SHA-256 of a key and its display prefix are ever stored.
      `CREATE TABLE api_keys (
        id text PRIMARY KEY,
        account_id text NOT NULL REFERENCES accounts (id),
        hash text NOT NULL UNIQUE,
        prefix text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint,
        revoked_at bigint
      )`,
      `CREATE INDEX api_keys_by_account ON api_keys (account_id)`,
      // `seq` is the submission order claims follow; `id` is the public identifier.
      `CREATE TABLE messages (
        seq bigserial PRIMARY KEY,
        id text NOT NULL UNIQUE,
        account_id text NOT NULL,
        message text NOT NULL,
        status text NOT NULL CHECK (status IN ('queued', 'processing', 'delivered', 'failed')),
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        attempts integer NOT NULL,
        available_at bigint NOT NULL,
        lease_until bigint NOT NULL,
        last_error text
      )`,
      // Only pending messages are indexed, so a claim scans the work left, not the history.
      `CREATE INDEX messages_pending ON messages (seq) WHERE status IN ('queued', 'processing')`,
      `CREATE TABLE limiter_quotas (account_id text PRIMARY KEY, day integer NOT NULL, used integer NOT NULL)`,
      `CREATE TABLE limiter_standings (
        key_id text PRIMARY KEY,
        wait_until bigint NOT NULL,
        strikes integer NOT NULL,
        banned_until bigint NOT NULL,
        bans integer NOT NULL,
        last_ban_at bigint NOT NULL
      )`,
      `CREATE TABLE secrets (name text PRIMARY KEY, value bytea NOT NULL)`
    ]
  },
  {
    id: 2,
    name: "idempotency_keys",
    statements: [
      // The answers of keyed creates: the primary key is the lock of a key across instances (a
      // second insert of it waits for the first transaction), written in the statement that writes
      // the pet or message it names (`resource_id`).
      `CREATE TABLE idempotency_keys (
        account_id text NOT NULL,
        key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
        operation text NOT NULL CHECK (operation IN ('createPet', 'createMessage')),
        fingerprint text NOT NULL,
        resource_id text NOT NULL,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (account_id, key)
      )`,
      `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`
    ]
  },
  {
    id: 3,
    name: "usage",
    statements: [
      // Counts per account, key and bucket (epoch ms of the hour's or the day's start), one column per outcome.
      ...["usage_hourly", "usage_daily"].flatMap((table) => [
        `CREATE TABLE ${table} (
          account_id text NOT NULL,
          start bigint NOT NULL,
          key_id text NOT NULL,
          allowed bigint NOT NULL DEFAULT 0,
          rate_limited bigint NOT NULL DEFAULT 0,
          quota_exceeded bigint NOT NULL DEFAULT 0,
          banned bigint NOT NULL DEFAULT 0,
          client_errors bigint NOT NULL DEFAULT 0,
          server_errors bigint NOT NULL DEFAULT 0,
          PRIMARY KEY (account_id, start, key_id)
        )`,
        `CREATE INDEX ${table}_by_start ON ${table} (start)`
      ]),
      // The batches already added, by instance and sequence number: a batch written twice counts once.
      `CREATE TABLE usage_flushes (
        instance_id text NOT NULL,
        seq bigint NOT NULL,
        at bigint NOT NULL,
        PRIMARY KEY (instance_id, seq)
      )`
    ]
  },
  {
    id: 4,
    name: "webhooks",
    statements: [
      // `secrets` is a JSON array of {secret, expiresAt}, the current one first.
      `CREATE TABLE webhook_endpoints (
        account_id text PRIMARY KEY,
        url text NOT NULL,
        secrets text NOT NULL,
        created_at bigint NOT NULL,
        updated_at bigint NOT NULL,
        failing_since bigint,
        disabled_at bigint,
        disabled_reason text
      )`,
      `CREATE TABLE webhook_attempts (
        seq bigserial PRIMARY KEY,
        message_id text NOT NULL,
        account_id text NOT NULL,
        attempt integer NOT NULL,
        url text NOT NULL,
        started_at bigint NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text
      )`,
      `CREATE INDEX webhook_attempts_by_message ON webhook_attempts (message_id, seq)`,
      `CREATE INDEX webhook_attempts_by_account ON webhook_attempts (account_id, started_at)`
    ]
  },
  {
    id: 5,
    name: "key_rotated_to",
    statements: [
      // The key that replaced this one when it was rotated (a key is rotated once); keys rotated
      // before this column existed have none.
      `ALTER TABLE api_keys ADD COLUMN rotated_to text`
    ]
  },
  {
    id: 6,
    name: "messages_by_account",
    statements: [
      // An account's messages in a status, in the order they came (the admin's listing of failures).
      // An index only: a program of the previous version runs on it as before.
      `CREATE INDEX IF NOT EXISTS messages_by_account ON messages (account_id, status, created_at, id)`
    ]
  },
  {
    id: 7,
    name: "console_sessions",
    statements: [
      // The operator console's sessions, shared by every instance: an HMAC-SHA-256 of each session id keyed from the admin token
      // (never the id) and its end. A new table only: a program of the previous version runs on it as before.
      `CREATE TABLE console_sessions (
        id_hash text PRIMARY KEY,
        expires_at bigint NOT NULL
      )`
    ]
  },
  {
    id: 8,
    name: "account_name_status",
    statements: [
      // An account's name for people (none before), and whether its keys are served; accounts
      // created before these columns are nameless and active. Additive: the previous program
      // neither reads nor writes them (its inserts take the defaults).
      `ALTER TABLE accounts ADD COLUMN name text`,
      `ALTER TABLE accounts ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended'))`
    ]
  },
  {
    id: 9,
    name: "accounts_newest",
    outsideTransaction: true,
    statements: [
      // The admin's listing: newest first, then by id in byte order (COLLATE "C", as the listing sorts).
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS accounts_newest ON accounts (created_at DESC, (id COLLATE "C") DESC)`
    ]
  },
  {
    id: 10,
    name: "messages_due",
    outsideTransaction: true,
    statements: [
      // The pending messages by the instant each may be claimed (a queued one's availability, a
      // claimed one's lease end): the workers' "when is the next one due" is its first entry, where
      // it was a read of every pending entry. An index only: a program of the previous version runs on it as before.
      // Written out, not built from `MESSAGE_DUE`: a released migration never changes. The statements that
      // read it repeat the expression exactly (DeliveryStatements.test.ts fails when they stop using it).
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS messages_due ON messages ((CASE WHEN status = 'queued' THEN available_at ELSE lease_until END))
         WHERE status IN ('queued', 'processing')`
    ]
  },
  {
    id: 11,
    name: "concurrent_pet_ids",
    statements: [
      // Pet ids handed out without the counter row, once `PetIds.switchIn` has run (docs/storage.md, *Concurrent
      // pet ids*). CACHE 1: a per-session cache would hand out ids below a value others already read.
      `CREATE SEQUENCE pet_id_sequence AS bigint MINVALUE 1 START WITH 1 CACHE 1`,
      // The advisory lock key of the sequence value `below` in this schema: 2^62, then 10 bits of the schema's
      // name (keys of other schemas of the database only rarely meet: then a listing waits for their inserts,
      // never skips), then the value (below 2^52). Apart from every other advisory lock of the pet store.
      `CREATE FUNCTION petstore_pet_id_key(below bigint) RETURNS bigint LANGUAGE sql STABLE AS $$
        SELECT 4611686018427387904 + ((hashtext(current_schema()) & 1023)::int8 << 52) + below
      $$`,
      // Takes `wanted` ids for an insert, in its transaction. While the counter row exists, from it, whose lock
      // is then held until commit (as before). Once the row is gone, from the sequence, after taking a
      // transaction-level shared advisory lock keyed by the sequence's last value read before: every id the insert
      // takes is above that value, and the lock says so to listings until the transaction ends, however it ends
      // (commit, abort, backend gone).
      `CREATE FUNCTION petstore_take_pet_ids(wanted integer) RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          before bigint;
          below bigint;
        BEGIN
          UPDATE pet_ids SET last = last + wanted RETURNING last - wanted INTO before;
          IF FOUND THEN
            RETURN ARRAY(SELECT before + i FROM generate_series(1, wanted) AS i);
          END IF;
          below := coalesce(pg_sequence_last_value('pet_id_sequence'), 0);
          PERFORM pg_advisory_xact_lock_shared(petstore_pet_id_key(below));
          RETURN ARRAY(SELECT nextval('pet_id_sequence') FROM generate_series(1, wanted));
        END
      $$`,
      // A page of pets after `after` (of `wanted_status`, or any when null), with no id that a transaction still
      // open may precede. Each statement below takes its own snapshot, in this order, which READ COMMITTED alone
      // gives (refused otherwise): 1. the newest id handed out (the counter's last, or the sequence's); 2. the
      // lowest key of the takers still holding their lock: the frontier; 3. the page, up to the frontier. A page
      // cut short by the frontier waits for those takers to end, then goes on up to the newest id of step 1 with a
      // new snapshot. A page after the newest id is empty at once.
      `CREATE FUNCTION petstore_list_pets(after bigint, wanted integer, wanted_status text) RETURNS SETOF pets LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          newest bigint;
          frontier bigint;
          base bigint;
          held bigint[] := '{}';
          shown bigint;
          taker bigint;
        BEGIN
          IF current_setting('transaction_isolation') <> 'read committed' THEN
            RAISE EXCEPTION 'petstore_list_pets needs READ COMMITTED (this transaction is %): each of its steps must see what committed before it', current_setting('transaction_isolation');
          END IF;
          SELECT last INTO newest FROM pet_ids;
          IF FOUND THEN
            frontier := newest;
          ELSE
            newest := coalesce(pg_sequence_last_value('pet_id_sequence'), 0);
            IF after >= newest THEN
              RETURN;
            END IF;
            base := petstore_pet_id_key(0);
            SELECT coalesce(array_agg(DISTINCT h.key ORDER BY h.key), '{}') INTO held FROM (
              SELECT ((l.classid::bigint << 32) | l.objid::bigint) - base AS key FROM pg_locks l
              WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.mode = 'ShareLock' AND l.granted
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            ) AS h WHERE h.key >= 0 AND h.key < newest;
            frontier := coalesce(held[1], newest);
          END IF;
          IF wanted_status IS NULL THEN
            RETURN QUERY SELECT * FROM pets WHERE id > after AND id <= frontier ORDER BY id LIMIT wanted;
          ELSE
            RETURN QUERY SELECT * FROM pets WHERE status = wanted_status AND id > after AND id <= frontier ORDER BY id LIMIT wanted;
          END IF;
          GET DIAGNOSTICS shown = ROW_COUNT;
          IF shown >= wanted OR frontier >= newest THEN
            RETURN;
          END IF;
          FOREACH taker IN ARRAY held LOOP
            PERFORM pg_advisory_xact_lock(base + taker);
          END LOOP;
          IF wanted_status IS NULL THEN
            RETURN QUERY SELECT * FROM pets WHERE id > greatest(after, frontier) AND id <= newest ORDER BY id LIMIT wanted - shown;
          ELSE
            RETURN QUERY SELECT * FROM pets WHERE status = wanted_status AND id > greatest(after, frontier) AND id <= newest
              ORDER BY id LIMIT wanted - shown;
          END IF;
        END
      $$`
    ]
  }
]
