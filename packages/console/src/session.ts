/**
 * The console's session as the page knows it: the CSRF token, in this module's memory only (never in
 * storage or a URL). The admin token typed at sign-in is sent once and forgotten; the session
 * itself is the HttpOnly cookie the page never sees. After a reload, `recover` asks
 * `GET /console/session` for the CSRF token again.
 */
let current: { readonly csrfToken: string; readonly expiresAt: string } | undefined

/** The CSRF token of the session, when signed in. */
export const csrfToken = (): string | undefined => current?.csrfToken

/** When the session ends (ISO 8601), when signed in. */
export const expiresAt = (): string | undefined => current?.expiresAt

/** The result of a sign-in attempt: signed in, or the server's message. */
export type SignInResult = { readonly ok: true } | { readonly ok: false; readonly message: string }

const messageOf = async (response: Response): Promise<string> => {
  try {
    const body = await response.json() as { message?: unknown }
    if (typeof body.message === "string") return body.message
  } catch {
    // Not an Error body.
  }
  return `${response.status} ${response.statusText}`.trim()
}

/** `POST /console/session` with the admin token; the token is not kept anywhere. */
export const signIn = async (token: string): Promise<SignInResult> => {
  const response = await fetch("/console/session", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    credentials: "same-origin",
    cache: "no-store",
    body: JSON.stringify({ token })
  })
  if (!response.ok) return { ok: false, message: await messageOf(response) }
  current = await response.json()
  return { ok: true }
}

/** `GET /console/session`: the session of the cookie, if any (after a reload). */
export const recover = async (): Promise<boolean> => {
  const response = await fetch("/console/session", {
    headers: { accept: "application/json" }, credentials: "same-origin", cache: "no-store"
  })
  // The body is read either way: an answer left unread keeps its request open.
  const body = await response.text()
  current = response.ok ? JSON.parse(body) : undefined
  return current !== undefined
}

/** `DELETE /console/session`: ends the session everywhere; the page forgets its CSRF token. */
export const signOut = async (): Promise<void> => {
  const token = current?.csrfToken
  current = undefined
  const response = await fetch("/console/session", {
    method: "DELETE",
    headers: token === undefined ? {} : { "x-csrf-token": token },
    credentials: "same-origin",
    cache: "no-store"
  })
  await response.text()
}

/** Forgets the session (the server said it ended). */
export const forget = (): void => {
  current = undefined
}
