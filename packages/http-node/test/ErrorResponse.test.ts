/**
 * The error catalogue: the Error body's schema, each answer's status from its code, and the
 * messages written from a failure's data.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import * as ErrorResponse from "../src/ErrorResponse.js"

const bodyOf = (result: ErrorResponse.ErrorResult) => JSON.parse(result.body) as { code: string; message: string; status: number }

describe("ErrorResponse", () => {
  it("ErrorBody is {code, message, status: integer}, named Error", () => {
    expect(Schema.decodeUnknownSync(ErrorResponse.ErrorBody)({ code: "x", message: "y", status: 400 })).toEqual({ code: "x", message: "y", status: 400 })
    expect(Result.isFailure(Schema.decodeUnknownResult(ErrorResponse.ErrorBody)({ code: "x", message: "y", status: 4.5 }))).toBe(true)
    expect(Object.keys(Schema.toJsonSchemaDocument(ErrorResponse.ErrorBody).definitions)).toContain("Error")
  })

  it("every fixed answer carries its code's status, in the body too", () => {
    for (const result of Object.values(ErrorResponse.STATIC)) {
      const body = bodyOf(result)
      expect(result.status).toBe(ErrorResponse.ERROR_CODES[result.code].status)
      expect(body).toEqual({ code: result.code, message: expect.any(String), status: result.status })
      expect(body.message.length).toBeGreaterThan(0)
    }
  })

  it("writes the messages of failures from their data", () => {
    expect(bodyOf(ErrorResponse.fromOperationError(new ErrorResponse.Gone({ operation: "GET /x", removedOn: "5 December 2030", replacement: "GET /y" }))))
      .toEqual({ code: "gone", status: 410, message: "GET /x was removed on 5 December 2030; use GET /y." })
    expect(bodyOf(ErrorResponse.fromOperationError(new ErrorResponse.InvalidInput({ location: "query", reason: "too long" }))).message)
      .toBe("query: too long")
    expect(bodyOf(ErrorResponse.fromOperationError(new ErrorResponse.InvalidInput({ location: "body expiresAt" }))).message)
      .toBe("body expiresAt: is not a valid date")
    expect(bodyOf(ErrorResponse.invalidJson({ _tag: "TooDeep", maxDepth: 32 })).message).toBe("The body nests deeper than 32 levels.")
    expect(bodyOf(ErrorResponse.notReady(["store down", "redis down"])).message).toBe("Not ready: store down; redis down.")
    expect(bodyOf(ErrorResponse.methodNotAllowed("PUT", "GET, HEAD")).message).toBe("PUT is not allowed here; allowed: GET, HEAD.")
  })
})

describe("the catalogue is the one place messages are written", () => {
  it("no other module of the package builds an Error answer from a message", async () => {
    const { readdir, readFile } = await import("node:fs/promises")
    const { join } = await import("node:path")
    const src = join(import.meta.dirname, "../src")
    const files = (await readdir(src, { recursive: true })).filter((f) => f.endsWith(".ts") && f !== "ErrorResponse.ts")
    const writers: Array<string> = []
    for (const file of files) {
      const text = await readFile(join(src, file), "utf8")
      if (/ErrorResponse\.make\(|\bmake\("[a-z_]+",/.test(text)) writers.push(file)
    }
    expect(writers).toEqual([])
  })
})
