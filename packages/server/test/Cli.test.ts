/**
 * The `petstore` command line. Most tests spawn the built `dist/bin.js` (run `pnpm build` first)
 * and look only at what a user sees: stdout, stderr and the exit code. The key lifecycle needs
 * a store that outlives one command, which the in-memory default is not, so it runs the same
 * commands in process over an account store shared between commands.
 */
import { NodeServices } from "@effect/platform-node"
import { afterAll, describe, expect, it } from "@effect/vitest"
import {
  Accounts,
  AccountStore,
  MessageProcessor,
  MessageStore,
  PageCursor,
  PetRepository,
  Petstore,
  SecureRandom,
  IdempotencyStore
} from "@petstore/core"
import { Console, Effect, Exit, Layer, Option } from "effect"
import { execFile } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Cli from "../src/Cli.js"
import * as Main from "../src/Main.js"
import { memoryServices } from "./support/MemoryServices.js"

const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url))
const ROOT = fileURLToPath(new URL("../../..", import.meta.url))
// `petstore --version` prints the package's version (docs/decisions.md), not the interface's (OpenAPI `info.version`).
const VERSION = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version
// Spawned commands run in an empty directory of their own (unless they share one on purpose), so a
// store at a relative default path stays there and concurrent commands never share a new file.
const directories: Array<string> = []
const emptyDirectory = () => {
  const directory = mkdtempSync(join(tmpdir(), "petstore-cli-"))
  directories.push(directory)
  return directory
}
afterAll(() => directories.forEach((directory) => rmSync(directory, { recursive: true, force: true })))

interface Outcome {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const spawnCli = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string> | undefined; readonly cwd?: string; readonly command?: ReadonlyArray<string> } = {}
) =>
  Effect.callback<Outcome>((resume) => {
    const [file, ...prefix] = options.command ?? [process.execPath, BIN]
    const child = execFile(file!, [...prefix, ...args], {
      cwd: options.cwd ?? emptyDirectory(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), NO_COLOR: "1", ...options.env },
      timeout: 60_000
    }, (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : child.exitCode, stdout, stderr })))
  })

const field = (stdout: string, label: string): string => {
  const match = new RegExp(`^${label}: (.+)$`, "m").exec(stdout)
  expect(match, `"${label}:" in\n${stdout}`).not.toBeNull()
  return match![1]!
}

const IN_MEMORY = /warning: .*in memory.*nothing is kept/
const KEY = /^psk_(live|test)_[A-Za-z0-9]{22,}$/

/** The error lines of stderr: everything but warnings and blank lines. */
const errorLines = (stderr: string) => stderr.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("warning:"))

describe("petstore CLI (spawned)", () => {
  it.effect("the build is there", () => Effect.sync(() => expect(existsSync(BIN), `${BIN}: run pnpm build`).toBe(true)))

  it.effect("accounts create prints the id, the plan and the key once; the store keeps them or stderr says it does not", () =>
    Effect.gen(function*() {
      const cwd = emptyDirectory()
      const created = yield* spawnCli(["accounts", "create", "--plan", "enterprise", "--per-minute", "7", "--per-day", "70"], { cwd })
      expect(created.code, created.stderr).toBe(0)
      const account = field(created.stdout, "account")
      expect(account).toMatch(/^acc_[A-Za-z0-9]+$/)
      expect(field(created.stdout, "plan")).toBe("enterprise (7 per minute, 70 per day)")
      const key = field(created.stdout, "key")
      expect(key).toMatch(KEY)
      expect(created.stdout.split(key).length - 1).toBe(1)
      expect(created.stderr).not.toContain(key)
      expect(created.stderr).toMatch(/shown only this once/)

      const listed = yield* spawnCli(["keys", "list", "--account", account], { cwd })
      expect(listed.stdout + listed.stderr).not.toContain(key)
      if (listed.code === 0) {
        // A durable store: the account is still there, and nobody was told otherwise.
        expect(created.stderr).not.toMatch(IN_MEMORY)
        expect(listed.stdout).toContain(field(created.stdout, "key id"))
        // A key that would expire before it is issued is refused, and none is issued.
        const past = yield* spawnCli(["keys", "create", "--account", account, "--expires-at", "2020-01-01T00:00:00Z"], { cwd })
        expect(past.code, past.stderr).toBe(1)
        expect(errorLines(past.stderr)).toEqual(["petstore: --expires-at 2020-01-01T00:00:00.000Z is not in the future; a key must expire after it is issued"])
        expect(past.stdout).not.toMatch(/psk_/)
        const relisted = yield* spawnCli(["keys", "list", "--account", account], { cwd })
        expect(relisted.stdout).toBe(listed.stdout)
      } else {
        expect(created.stderr).toMatch(IN_MEMORY)
        expect(listed.stderr).toMatch(/warning: .*in-memory store.*nothing is kept between commands/)
        expect(errorLines(listed.stderr)).toEqual([`petstore: unknown account "${account}"`])
      }
    }), 120_000)

  it.effect("with PETSTORE_STORE=memory, accounts create still prints the key and warns that nothing is kept", () =>
    Effect.gen(function*() {
      const created = yield* spawnCli(["accounts", "create", "--plan", "free"], { env: { PETSTORE_STORE: "memory" } })
      expect(created.code, created.stderr).toBe(0)
      expect(field(created.stdout, "key")).toMatch(KEY)
      expect(created.stderr).toMatch(IN_MEMORY)
    }), 60_000)

  it.effect("every error is one line on stderr and exit code 1, never a stack trace", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp, Record<string, string>?]> = [
        [["accounts", "create", "--plan", "gold"], /free.*pro.*business.*enterprise/],
        [["accounts", "create", "--plan", "free", "--per-minute", "5"], /^petstore: --per-minute and --per-day apply only to the enterprise plan/],
        [["accounts", "create", "--plan", "enterprise", "--per-day", "5"], /^petstore: the enterprise plan needs both --per-minute and --per-day$/],
        [["accounts", "create", "--plan", "enterprise", "--per-minute", "0", "--per-day", "5"], /^petstore: invalid plan: limits must be positive integers$/],
        [["keys", "create", "--account", "acc_missing"], /^petstore: unknown account "acc_missing"$/],
        [["keys", "create", "--account", "acc_missing", "--expires-at", "2030-02-30T00:00:00Z"], /^petstore: --expires-at must be a real date and time/],
        [["keys", "list", "--account", "acc_missing"], /^petstore: unknown account "acc_missing"$/],
        [["keys", "revoke", "key_missing"], /^petstore: unknown key "key_missing"$/],
        [["keys", "rotate", "key_missing"], /^petstore: no active key "key_missing"/],
        [["keys", "rotate", "key_missing", "--grace-seconds", "9999999"], /^petstore: --grace-seconds must be an integer between 0 and 2592000, got 9999999$/],
        [["keys", "frobnicate"], /Unknown subcommand "frobnicate"/],
        [["keys", "list", "--account", "acc_x"], /^petstore: invalid configuration: .*PORT/, { PORT: "not-a-port" }]
      ]
      const outcomes = yield* Effect.forEach(cases, ([args, , env]) => spawnCli(args, { env }), { concurrency: 4 })
      outcomes.forEach((outcome, i) => {
        const [args, message] = cases[i]!
        const label = `petstore ${args.join(" ")}\n${outcome.stderr}`
        expect(outcome.code, label).toBe(1)
        expect(errorLines(outcome.stderr), label).toHaveLength(1)
        expect(errorLines(outcome.stderr)[0], label).toMatch(message)
        expect(outcome.stderr, label).not.toMatch(/^\s+at |Error:|\{"_tag"/m)
        expect(outcome.stdout, label).not.toMatch(/psk_/)
      })
    }), 180_000)

  it.effect("a configuration error names its variable and never prints a secret's value", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [Record<string, string>, string, string?]> = [
        [{ PETSTORE_ADMIN_TOKEN: "short-secret" }, "PETSTORE_ADMIN_TOKEN must be at least 16 characters", "short-secret"],
        // Characters outside the Bearer syntax: a client could never send it, so it would be 401 forever.
        [{ PETSTORE_ADMIN_TOKEN: "Adm1n!Token#2024$ecret" }, "PETSTORE_ADMIN_TOKEN must be a Bearer token", "Adm1n!Token#2024$ecret"],
        [{ PETSTORE_ADMIN_TOKEN: "padding=in-the-middle-0123" }, "PETSTORE_ADMIN_TOKEN must be a Bearer token", "padding=in-the-middle-0123"],
        [{ PETSTORE_DATABASE: "mysql://user:hunter2-secret@db/x" }, "PETSTORE_DATABASE must be", "hunter2-secret"],
        [{ PETSTORE_REDIS_URL: "http://user:hunter2-secret@cache" }, "PETSTORE_REDIS_URL must be", "hunter2-secret"],
        [{ PORT: "99999" }, "PORT: "],
        [{ PETSTORE_PUBLIC_URL: "ftp://example.com" }, "PETSTORE_PUBLIC_URL must be an absolute http(s) URL"],
        [{ PETSTORE_QUICKSTART_BASE_PATH: "v1/" }, "PETSTORE_QUICKSTART_BASE_PATH must be a path"],
        [{ PETSTORE_TRUST_PROXY: "yes" }, "PETSTORE_TRUST_PROXY must be true, false"],
        [{ PETSTORE_IPV6_SUBNET: "16" }, "PETSTORE_IPV6_SUBNET must be a prefix length from 32 to 128"],
        [{ PETSTORE_STORE: "mongo" }, "PETSTORE_STORE: "],
        [{ PETSTORE_BAN_GRACE_MS: "5000" }, "PETSTORE_BAN_GRACE_MS must be"]
      ]
      const outcomes = yield* Effect.forEach(cases, ([env]) => spawnCli(["keys", "list", "--account", "acc_x"], { env }), { concurrency: 4 })
      outcomes.forEach((outcome, i) => {
        const [env, named, secret] = cases[i]!
        const label = `${JSON.stringify(env)}\n${outcome.stderr}`
        expect(outcome.code, label).toBe(1)
        expect(errorLines(outcome.stderr), label).toEqual([expect.stringContaining(`petstore: invalid configuration: ${named}`)])
        expect(outcome.stderr, label).not.toMatch(/Invalid data at/)
        if (secret !== undefined) expect(outcome.stderr + outcome.stdout, label).not.toContain(secret)
      })
    }), 180_000)

  it.effect("serve refuses to start with an admin token outside the Bearer syntax, naming the variable", () =>
    Effect.gen(function*() {
      const outcome = yield* spawnCli(["serve"], { env: { PETSTORE_STORE: "memory", PETSTORE_ADMIN_TOKEN: "Adm1n!Token#2024$ecret" } })
      expect(outcome.code, outcome.stderr).toBe(1)
      expect(errorLines(outcome.stderr)).toEqual([expect.stringContaining("petstore: invalid configuration: PETSTORE_ADMIN_TOKEN must be a Bearer token")])
      expect(outcome.stderr + outcome.stdout).not.toContain("Adm1n!Token#2024$ecret")
    }), 60_000)

  it.effect("--help is plain text when not on a terminal, and on a terminal with NO_COLOR set", () =>
    Effect.gen(function*() {
      const ESC = "\x1b["
      const piped = yield* spawnCli(["--help"], { env: { NO_COLOR: "" } })
      expect(piped.code, piped.stderr).toBe(0)
      expect(piped.stdout).toMatch(/USAGE\n  petstore /)
      expect(piped.stdout).not.toContain(ESC)
      // On a terminal (util-linux's `script` gives the command one): styled, unless NO_COLOR says not.
      const onTerminal = (noColor: string) =>
        spawnCli(["-qec", `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} --help`, "/dev/null"], {
          command: ["script"],
          env: { NO_COLOR: noColor }
        })
      const styled = yield* onTerminal("")
      const plain = yield* onTerminal("1")
      expect(styled.code, styled.stderr).toBe(0)
      expect(styled.stdout).toContain(ESC)
      expect(plain.code, plain.stderr).toBe(0)
      expect(plain.stdout).toMatch(/USAGE\r?\n  petstore /)
      expect(plain.stdout).not.toContain(ESC)
    }), 60_000)

  it.effect("`pnpm petstore` runs the command from the repository root", () =>
    Effect.gen(function*() {
      const outcome = yield* spawnCli(["--version"], { cwd: ROOT, command: ["pnpm", "--silent", "petstore"] })
      expect(outcome.code, outcome.stderr).toBe(0)
      expect(outcome.stdout.trim()).toBe(VERSION)
    }), 60_000)
})

/** Runs one command in process and captures what it prints. */
const runCli = (cli: ReturnType<typeof Cli.make>, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const base = yield* Console.Console
    // Effect 4's console methods are plain functions.
    const capture: Console.Console = {
      ...base,
      log: (...a: ReadonlyArray<unknown>) => void stdout.push(a.join(" ")),
      error: (...a: ReadonlyArray<unknown>) => void stderr.push(a.join(" "))
    }
    const exit = yield* Effect.exit(Effect.provideService(cli(["node", "petstore", ...args]), Console.Console, capture))
    return { ok: Exit.isSuccess(exit), stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  }).pipe(Effect.provide(NodeServices.layer))

/** Services whose account store outlives each command, as a durable store would. */
const keepingServices = () => {
  const accountStore = AccountStore.makeMemory()
  const stores = Layer.mergeAll(
    Layer.succeed(AccountStore.AccountStore, accountStore),
    PetRepository.PetRepository.layerMemory,
    MessageStore.MessageStore.layerMemory,
    PageCursor.CursorSigner.random,
    MessageProcessor.MessageProcessor.layerRecordOnly
  ).pipe(Layer.provideMerge(SecureRandom.SecureRandom.Live))
  const services: Main.ServicesLayer = Petstore.layer().pipe(
    Layer.provide(IdempotencyStore.IdempotencyStore.layerMemory.pipe(Layer.provideMerge(stores)))
  )
  const verify = (key: string) =>
    Effect.flatMap(Accounts.Accounts, (accounts) => accounts.verify(key)).pipe(
      Effect.map(Option.isSome),
      Effect.provide(Accounts.Accounts.layer({ environment: "production" }).pipe(Layer.provide(stores)))
    )
  return { services, verify }
}

describe("petstore CLI (in process, over a store that keeps data)", () => {
  it.effect("keys create, list, rotate and revoke act on the account; keys are printed only when created", () =>
    Effect.gen(function*() {
      const { services, verify } = keepingServices()
      const cli = Cli.make({ services: () => services })

      const created = yield* runCli(cli, "accounts", "create", "--plan", "pro")
      expect(created.ok, created.stderr).toBe(true)
      expect(created.stderr).not.toMatch(/warning/)
      expect(field(created.stdout, "plan")).toBe("pro (300 per minute, 10000 per day)")
      const account = field(created.stdout, "account")
      const first = { id: field(created.stdout, "key id"), key: field(created.stdout, "key") }
      expect(yield* verify(first.key)).toBe(true)

      const issued = yield* runCli(cli, "keys", "create", "--account", account, "--expires-at", "2099-01-31T12:00:00Z")
      expect(issued.ok, issued.stderr).toBe(true)
      expect(field(issued.stdout, "expires")).toBe("2099-01-31T12:00:00.000Z")
      const second = { id: field(issued.stdout, "key id"), key: field(issued.stdout, "key") }
      expect(second.key).toMatch(KEY)
      expect(yield* verify(second.key)).toBe(true)

      const rotated = yield* runCli(cli, "keys", "rotate", first.id, "--grace-seconds", "0")
      expect(rotated.ok, rotated.stderr).toBe(true)
      const third = { id: field(rotated.stdout, "key id"), key: field(rotated.stdout, "key") }
      expect(field(rotated.stdout, "old key")).toBe("no longer accepted")
      expect(yield* verify(first.key)).toBe(false)
      expect(yield* verify(third.key)).toBe(true)

      const revoked = yield* runCli(cli, "keys", "revoke", second.id)
      expect(revoked.ok, revoked.stderr).toBe(true)
      expect(yield* verify(second.key)).toBe(false)

      const listed = yield* runCli(cli, "keys", "list", "--account", account)
      expect(listed.ok, listed.stderr).toBe(true)
      const rows = listed.stdout.split("\n")
      expect(rows[0]).toMatch(/^ID\s+PREFIX\s+STATE\s+CREATED\s+EXPIRES\s+REVOKED\s+ROTATED TO$/)
      const stateOf = (id: string) => rows.find((r) => r.startsWith(id))?.split(/\s+/)[2]
      expect(rows).toHaveLength(4)
      expect([stateOf(first.id), stateOf(second.id), stateOf(third.id)]).toEqual(["expired", "revoked", "active"])
      for (const { key } of [first, second, third]) expect(listed.stdout).not.toContain(key)

      const graced = yield* runCli(cli, "keys", "rotate", third.id, "--grace-seconds", "3600")
      expect(graced.ok, graced.stderr).toBe(true)
      expect(field(graced.stdout, "old key")).toBe("accepted for at most 3600 more seconds")
      expect(yield* verify(third.key)).toBe(true)
      expect(yield* verify(field(graced.stdout, "key"))).toBe(true)

      expect(rows.find((r) => r.startsWith(first.id))?.split(/\s+/).at(-1)).toBe(third.id)
      expect(rows.find((r) => r.startsWith(second.id))?.split(/\s+/).at(-1)).toBe("-")

      // A key is rotated once, during its grace (third) or after it (first): refused, naming the successor, nothing issued.
      const successor = field(graced.stdout, "key id")
      for (const [id, next] of [[third.id, successor], [first.id, third.id]] as const) {
        const again = yield* runCli(cli, "keys", "rotate", id, "--grace-seconds", "60")
        expect(again.ok).toBe(false)
        expect(again.stdout).toBe("")
        expect(again.stderr).toBe(
          `petstore: key "${id}" was already rotated: its successor is "${next}"; rotate "${next}" to replace it in turn`
        )
      }
      expect(yield* verify(third.key)).toBe(true)
      const relisted = yield* runCli(cli, "keys", "list", "--account", account)
      expect(relisted.stdout.split("\n")).toHaveLength(5)
      const revokedOnly = yield* runCli(cli, "keys", "rotate", second.id)
      expect(revokedOnly.stderr).toBe(`petstore: no active key "${second.id}" (unknown, revoked or expired)`)
    }))

  it.effect("accounts list, show and update: filters, name, plan and limits by the creation rules, status", () =>
    Effect.gen(function*() {
      const { services } = keepingServices()
      const cli = Cli.make({ services: () => services })
      const ids: Array<string> = []
      for (const plan of ["free", "pro", "free"]) ids.push(field((yield* runCli(cli, "accounts", "create", "--plan", plan)).stdout, "account"))
      const [first, second, third] = ids as [string, string, string]

      const renamed = yield* runCli(cli, "accounts", "update", first, "--name", "Acme Widgets", "--status", "suspended")
      expect(renamed.ok, renamed.stderr).toBe(true)
      expect(field(renamed.stdout, "name")).toBe("Acme Widgets")
      expect(field(renamed.stdout, "status")).toBe("suspended")
      const shown = yield* runCli(cli, "accounts", "show", first)
      expect([field(shown.stdout, "account"), field(shown.stdout, "plan"), field(shown.stdout, "keys"), field(shown.stdout, "webhook")])
        .toStrictEqual([first, "free (60 per minute, 1000 per day)", "1", "none"])

      const rows = (out: string) => out.split("\n").slice(1).filter((line) => !line.startsWith("(")).map((line) => line.split(/\s+/)[0])
      const all = yield* runCli(cli, "accounts", "list")
      expect(all.stdout.split("\n")[0]).toMatch(/^ID\s+NAME\s+PLAN\s+LIMITS\s+STATUS\s+CREATED$/)
      expect([...rows(all.stdout)].sort()).toStrictEqual([...ids].sort())
      expect(rows((yield* runCli(cli, "accounts", "list", "--plan", "free")).stdout).sort()).toStrictEqual([first, third].sort())
      expect(rows((yield* runCli(cli, "accounts", "list", "--status", "suspended")).stdout)).toStrictEqual([first])
      expect(rows((yield* runCli(cli, "accounts", "list", "--q", "widget")).stdout)).toStrictEqual([first])
      const one = yield* runCli(cli, "accounts", "list", "--limit", "1")
      expect(rows(one.stdout)).toHaveLength(1)
      expect(one.stdout).toMatch(/more accounts follow/)

      const enterprise = yield* runCli(cli, "accounts", "update", second, "--plan", "enterprise", "--per-minute", "7", "--per-day", "70")
      expect(field(enterprise.stdout, "plan")).toBe("enterprise (7 per minute, 70 per day)")
      // 200 characters as the API counts them (code points): 200 emoji pass, 201 do not (below).
      const emoji = "\u{1F436}".repeat(200)
      expect(field((yield* runCli(cli, "accounts", "update", third, "--name", emoji)).stdout, "name")).toBe(emoji)
      const cleared = yield* runCli(cli, "accounts", "update", first, "--clear-name", "--status", "active")
      expect([field(cleared.stdout, "name"), field(cleared.stdout, "status")]).toStrictEqual(["-", "active"])

      for (
        const [args, message] of [
          [["update", third, "--plan", "enterprise"], /enterprise accounts need limits/],
          [["update", third, "--per-minute", "5", "--per-day", "50"], /limits can only be set for enterprise/],
          [["update", third, "--per-minute", "5"], /--per-minute and --per-day go together/],
          [["update", third, "--name", "x", "--clear-name"], /cannot be used together/],
          [["update", third, "--name", `${emoji}x`], /--name must be 1 to 200 characters/],
          [["update", third, "--name", "a\u0000b"], /--name must be 1 to 200 characters/],
          [["list", "--q", "x".repeat(201)], /--q must be 1 to 200 characters/],
          [["update", "acc_unknown", "--status", "suspended"], /unknown account/],
          [["show", "acc_unknown"], /unknown account/],
          [["list", "--limit", "0"], /--limit must be between 1 and 100/]
        ] as const
      ) {
        const refused = yield* runCli(cli, "accounts", ...args)
        expect(refused.ok).toBe(false)
        expect(refused.stderr).toMatch(message)
      }
    }))

  it.effect("with the in-memory stores, accounts create warns on stderr that nothing is kept", () =>
    Effect.gen(function*() {
      const cli = Cli.make({ services: memoryServices })
      const created = yield* runCli(cli, "accounts", "create", "--plan", "free")
      expect(created.ok, created.stderr).toBe(true)
      expect(field(created.stdout, "key")).toMatch(KEY)
      expect(created.stderr).toMatch(IN_MEMORY)
      const listed = yield* runCli(cli, "keys", "list", "--account", field(created.stdout, "account"))
      expect(listed.ok).toBe(false)
      expect(listed.stderr).toMatch(/warning: the store holds no accounts/)
    }))
})
