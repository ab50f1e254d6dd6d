/** Signing in to the console in the HTTP tests, and reading its cookie. */
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { expectStatus } from "./Expectations.js"
import { ADMIN_TOKEN, type Reply, type TestServer } from "./TestServer.js"

/** The cookie's value and attributes of a `Set-Cookie` header. */
export const cookieOf = (reply: Reply) => {
  const header = reply.headers.get("set-cookie")
  expect(header, reply.text).toBeTypeOf("string")
  const [pair, ...attributes] = header!.split(";").map((s) => s.trim())
  expect(pair).toMatch(/^petstore_console=/)
  return { value: pair!.slice("petstore_console=".length), attributes }
}

/** A signed-in console: the `Cookie` header to send, the CSRF token, and the sign-in's reply. */
export interface SignedIn {
  readonly reply: Reply
  readonly cookie: string
  readonly csrf: string
}

/** Signs in with the admin token (JSON), sending `headers` too. */
export const signIn = (server: TestServer["Service"], headers: Record<string, string> = {}): Effect.Effect<SignedIn> =>
  Effect.gen(function*() {
    const reply = expectStatus(yield* server.request("POST", "/console/session", { json: { token: ADMIN_TOKEN }, headers }), 200)
    return { reply, cookie: `petstore_console=${cookieOf(reply).value}`, csrf: reply.body.csrfToken as string }
  })
