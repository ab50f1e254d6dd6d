import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as Errors from "../src/Errors.js"
import * as Message from "../src/Message.js"
import { jsonSchemaOf } from "./support/JsonSchema.js"

describe("Message", () => {
  it("NewMessage needs a string message; Message has id, message, status and createdAt", () => {
    expect(Schema.decodeUnknownSync(Message.NewMessage)({ message: "hi", extra: 1 })).toEqual({ message: "hi" })
    expect(Result.isFailure(Schema.decodeUnknownResult(Message.NewMessage)({}))).toBe(true)
    expect(Result.isFailure(Schema.decodeUnknownResult(Message.NewMessage)({ message: 1 }))).toBe(true)
    const m = { id: "msg_1", message: "hi", status: "queued", createdAt: "2030-01-01T00:00:00.000Z" }
    expect(Schema.decodeUnknownSync(Message.Message)(m)).toEqual(m)
    for (const status of ["queued", "processing", "delivered", "failed"]) expect(Schema.is(Message.MessageStatus)(status)).toBe(true)
    expect(Schema.is(Message.MessageStatus)("sent")).toBe(false)
  })

  it("the schemas carry their OpenAPI names and createdAt is a date-time", () => {
    const json = jsonSchemaOf(Message.Message) as unknown as { $defs: Record<string, { properties?: Record<string, unknown> }> }
    expect(Object.keys(json.$defs)).toEqual(expect.arrayContaining(["Message", "MessageId", "MessageStatus"]))
    expect(json.$defs.Message!.properties!.createdAt).toMatchObject({ type: "string", format: "date-time" })
    expect(Object.keys((jsonSchemaOf(Message.NewMessage) as unknown as { $defs: object }).$defs)).toContain("NewMessage")
  })

  it("domain errors are tagged and carry what a caller needs", () => {
    expect(new Errors.PetNotFound({ id: 3 })).toMatchObject({ _tag: "PetNotFound", id: 3 })
    expect(new Errors.MessageNotFound({ id: "m" })).toMatchObject({ _tag: "MessageNotFound", id: "m" })
    expect(new Errors.InvalidCursor({ reason: "r" })).toMatchObject({ _tag: "InvalidCursor", reason: "r" })
    expect(new Errors.AccountNotFound({ id: "a" })).toMatchObject({ _tag: "AccountNotFound", id: "a" })
    expect(new Errors.KeyNotFound({ id: "k" })).toMatchObject({ _tag: "KeyNotFound", id: "k" })
    expect(new Errors.InvalidPlan({ reason: "p" })).toMatchObject({ _tag: "InvalidPlan", reason: "p" })
    expect(new Errors.StoreUnavailable({ cause: "down" })).toMatchObject({ _tag: "StoreUnavailable", cause: "down" })
  })
})
