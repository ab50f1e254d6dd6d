/**
 * Everything a store holds, as plain records: what moves from one store to another (a SQLite file
 * into PostgreSQL) with nothing lost: pets keep their ids, messages their state and order, keys
 * their hashes, the limiter its daily counts and bans, and cursors stay valid (the secret moves).
 *
 * @since 1.0.0
 */
import type { Account, KeyRecord } from "./AccountStore.js"
import type { StoredMessage } from "./MessageStore.js"
import type { Pet } from "./Pet.js"
import type { DurableLimiterState } from "./RateLimiter.js"

/** Everything a store holds, as one value: what an export writes and an import reads. */
export interface StoreSnapshot {
  readonly accounts: ReadonlyArray<Account>
  readonly keys: ReadonlyArray<KeyRecord>
  /** By ascending id. */
  readonly pets: ReadonlyArray<Pet>
  /** In submission order. */
  readonly messages: ReadonlyArray<StoredMessage>
  readonly limiter: DurableLimiterState
  /** The page-cursor secret, when one was made. */
  readonly cursorSecret: Uint8Array | undefined
}

/** How many records of each kind a snapshot holds, for reports. */
export const counts = (snapshot: StoreSnapshot) => ({
  accounts: snapshot.accounts.length,
  keys: snapshot.keys.length,
  pets: snapshot.pets.length,
  messages: snapshot.messages.length,
  dailyCounts: snapshot.limiter.quotas.length,
  keyStandings: snapshot.limiter.standings.length
})
