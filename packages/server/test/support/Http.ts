/**
 * Small HTTP helpers for tests against real server processes: the public API with a key, and the
 * admin API with the admin token.
 */
export const ADMIN_TOKEN = "test-admin-token-0123456789"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

export const request = async (url: string, init: RequestInit & { readonly key?: string } = {}): Promise<Reply> => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) }
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`
  if (init.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(url, { ...init, headers })
  const text = await response.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, headers: response.headers, body }
}

export const get = (base: string, path: string, key: string) => request(`${base}${path}`, { key })

export const post = (base: string, path: string, key: string, body: unknown) =>
  request(`${base}${path}`, { method: "POST", key, body: JSON.stringify(body) })

export interface TestAccount {
  readonly accountId: string
  readonly keyId: string
  readonly key: string
}

/** An account created through the admin API (default: enterprise with limits far above any test). */
export const createAccount = async (
  base: string,
  plan: { readonly plan: string; readonly limits?: { readonly perMinute: number; readonly perDay: number } } = {
    plan: "enterprise",
    limits: { perMinute: 1_000_000, perDay: 100_000_000 }
  }
): Promise<TestAccount> => {
  const reply = await request(`${base}/admin/v1/accounts`, {
    method: "POST",
    key: ADMIN_TOKEN,
    body: JSON.stringify(plan)
  })
  if (reply.status !== 201) throw new Error(`account not created: ${reply.status} ${JSON.stringify(reply.body)}`)
  return { accountId: reply.body.id, keyId: reply.body.keyId, key: reply.body.key }
}

/** Every pet the listing shows, page after page (`limit` per page), following the Link header. */
export const listAll = async (base: string, key: string, query = "limit=100") => {
  const pets: Array<{ id: number; name: string; status: string }> = []
  let path: string | undefined = `/v1/pets?${query}`
  while (path !== undefined) {
    const reply = await get(base, path, key)
    if (reply.status !== 200) throw new Error(`listing failed: ${reply.status} ${JSON.stringify(reply.body)}`)
    pets.push(...reply.body)
    path = /<([^>]+)>; rel="next"/.exec(reply.headers.get("link") ?? "")?.[1]
  }
  return pets
}
