import { expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectStatus } from "./support/Expectations.js"
import { TestServer } from "./support/TestServer.js"

it.effect("GET /admin/v1/messages/{messageId}: the message as the account's listing answers it, with its account; 404 for an unknown id", () =>
  Effect.gen(function*() {
    const server = yield* TestServer.start({ webhooks: true })
    const [first, second] = [yield* server.enterprise(100), yield* server.enterprise(100)]
    const sent = expectStatus(yield* server.post("/v1/messages", { message: "Hello ✓" }, second.key), 202).body
    expectStatus(yield* server.post("/v1/messages", { message: "another account's" }, first.key), 202)
    const read = expectStatus(yield* server.admin.request("GET", `/messages/${sent.id}`), 200)
    expect(read.headers.get("cache-control")).toBe("no-store")
    const listed = expectStatus(yield* server.admin.request("GET", `/accounts/${second.id}/messages`), 200).body
    expect(listed).toHaveLength(1)
    expect(read.body).toStrictEqual({ ...listed[0], accountId: second.id })
    expect(read.body).toMatchObject({ id: sent.id, message: "Hello ✓", accountId: second.id })
    expectError(yield* server.admin.request("GET", "/messages/msg_nope"), 404, "not_found")
    // The admin token is needed, as for every admin read.
    expectError(yield* server.request("GET", `/admin/v1/messages/${sent.id}`), 401, "unauthorized")
  }))
