/**
 * The console's one way to the server: `fetch` to the same origin, the session cookie sent by the
 * browser, the CSRF token (kept in memory only, see session.ts) in `X-CSRF-Token`. An answer that is
 * not 2xx becomes an `ApiError` carrying the Error body's `message`, the text the page shows.
 */
import { csrfToken, forget } from "./session.js"

/** The event the window receives when the server no longer knows the session (401): the page shows the sign-in form. */
export const SIGNED_OUT = "petstore-console-signed-out"

/** An answer of the server that is not a success: its Error body's `code`, `message` and `status`. */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

/** A successful answer: its parsed JSON body (undefined when empty) and its headers. */
export interface Answer<A> {
  readonly status: number
  readonly body: A
  readonly headers: Headers
}

const errorOf = async (response: Response): Promise<ApiError> => {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown }
    if (typeof body.message === "string") {
      return new ApiError(response.status, typeof body.code === "string" ? body.code : "error", body.message)
    }
  } catch {
    // Not an Error body: the status line says what there is to say.
  }
  return new ApiError(response.status, "error", `${response.status} ${response.statusText}`.trim())
}

/** Sends `method path` with `body` as JSON (when given); resolves with the answer or rejects with an ApiError. */
export const request = async <A>(method: string, path: string, body?: unknown): Promise<Answer<A>> => {
  const headers: Record<string, string> = { accept: "application/json" }
  const token = csrfToken()
  if (token !== undefined) headers["x-csrf-token"] = token
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    cache: "no-store",
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  if (response.status === 401) {
    forget()
    window.dispatchEvent(new Event(SIGNED_OUT))
  }
  if (!response.ok) throw await errorOf(response)
  const text = await response.text()
  return { status: response.status, body: (text === "" ? undefined : JSON.parse(text)) as A, headers: response.headers }
}

/** `GET path`: the body. */
export const get = async <A>(path: string): Promise<A> => (await request<A>("GET", path)).body

/** The text to show for anything a call rejected with: an ApiError's message, else the error's. */
export const messageOf = (error: unknown): string =>
  error instanceof Error ? error.message : String(error)
