/** The shapes of the admin API's answers the console reads. */

/** An account as `GET /admin/v1/accounts/{id}` answers it. */
export interface Account {
  readonly id: string
  readonly name: string | null
  readonly plan: string
  readonly limits: { readonly perMinute: number; readonly perDay: number }
  readonly status: "active" | "suspended"
  readonly createdAt: string
  readonly keys: number
  readonly webhook: boolean
}

/** A key's metadata (`GET /admin/v1/accounts/{id}/keys`). */
export interface Key {
  readonly id: string
  readonly prefix: string
  readonly state: string
  readonly createdAt: string
  readonly expiresAt: string | null
  readonly revokedAt: string | null
  readonly rotatedTo: string | null
}

/** A key as issued: the key itself, shown once. */
export interface IssuedKey {
  readonly id: string
  readonly key: string
  readonly prefix: string
  readonly expiresAt: string | null
}

/** A message of an account (`GET /admin/v1/accounts/{id}/messages`). */
export interface Message {
  readonly id: string
  readonly status: "queued" | "processing" | "delivered" | "failed"
  readonly message: string
  readonly attempts: number
  readonly createdAt: string
  readonly updatedAt: string
  readonly lastError: string | null
}

/** A message read alone (`GET /admin/v1/messages/{id}`): with the account it belongs to. */
export interface AccountMessage extends Message {
  readonly accountId: string
}

/** An attempt to deliver a message. */
export interface Attempt {
  readonly attempt: number
  readonly url: string
  readonly startedAt: string
  readonly durationMs: number
  readonly statusCode: number | null
  readonly error: string | null
}

/** The plans an account can be on. */
export const PLANS = ["free", "pro", "business", "enterprise"] as const
