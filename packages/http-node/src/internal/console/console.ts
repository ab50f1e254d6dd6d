/**
 * The operator console's server side, built once with the application when it has an admin token
 * and the console is on: the sessions (over the store's `ConsoleSessionStore` when it has one, else
 * in process memory), the session endpoint's stages, and the pages and files of the console's build
 * (read and compressed here; a build that cannot be read is logged and its pages answer 404, while
 * the session and the admin API's cookie keep working).
 */
import { ConsoleSessionStore } from "@petstore/core"
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { AppRequest } from "../../AppRequest.js"
import type { AppResponse } from "../../AppResponse.js"
import * as ErrorResponse from "../../ErrorResponse.js"
import * as AdminGate from "../adminGate.js"
import { refusal } from "../stages/answer.js"
import * as Exchange from "../stages/exchange.js"
import { write } from "../stages/write.js"
import * as Pipeline from "../stages/pipeline.js"
import * as Assets from "./assets.js"
import * as Pages from "./pages.js"
import * as SessionEndpoint from "./sessionEndpoint.js"
import * as Sessions from "./sessions.js"

/** Default of `sessionHours`. */
export const SESSION_HOURS = 12

/** The console's settings in the application's options. */
export interface ConsoleOptions {
  /** The directory of the console's build: `manifest.json` and the files it is made of (read at start-up). */
  readonly directory: string
  /** How long a session lasts, in hours (default 12). */
  readonly sessionHours?: number | undefined
}

/** The console, built. */
export interface Console {
  /** The admin gate, accepting the console's cookie in place of the token. */
  readonly gate: AdminGate.AdminGate
  /** The stages of `/console/session`. */
  readonly session: ReturnType<typeof Pipeline.runner>
  /** The answer to a page or a file (`undefined` when the build could not be read: 404). */
  readonly pages: ((request: AppRequest, path: string) => AppResponse) | undefined
}

/** Whether `path` is the console's (a page, a file or the session). */
export const isConsolePath = (path: string): boolean => path === "/console" || path.startsWith("/console/")

/** The session's path. */
export const SESSION_PATH = "/console/session"

/** The 404 of every `/console` path while the console is off. */
const off = (request: AppRequest): AppResponse => write(Exchange.make(request), refusal(ErrorResponse.STATIC.routeNotFound))

/**
 * The answer to a request for a console path: its session through `serveSession` (the
 * application's stages' recovery and writing), its pages and files; 404 when it is off.
 */
export const answer = (
  built: Console | undefined,
  request: AppRequest,
  path: string,
  serveSession: (session: Console["session"]) => Effect.Effect<AppResponse>
): Effect.Effect<AppResponse> => {
  if (built === undefined) return Effect.succeed(off(request))
  if (path === SESSION_PATH) return serveSession(built.session)
  return Effect.succeed(built.pages === undefined ? off(request) : built.pages(request, path))
}

/** Builds the console, or only the admin gate when it is off (no admin token, or no `options`). */
export const make = (options: {
  readonly console: ConsoleOptions | undefined
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly clientAddress: (request: AppRequest) => string
  readonly trustProxy: number
  readonly clock: Clock.Clock
}): Effect.Effect<{ readonly gate: AdminGate.AdminGate; readonly console: Console | undefined }> =>
  Effect.gen(function*() {
    const settings = options.console
    if (settings === undefined || Option.isNone(options.adminToken)) {
      return { gate: AdminGate.make({ adminToken: options.adminToken, clientAddress: options.clientAddress }), console: undefined }
    }
    const store = Option.getOrElse(yield* Effect.serviceOption(ConsoleSessionStore.ConsoleSessionStore), ConsoleSessionStore.makeMemory)
    const hours = settings.sessionHours ?? SESSION_HOURS
    const sessions = Sessions.make({ store, adminToken: Redacted.value(options.adminToken.value), hours })
    const gate = AdminGate.make({
      adminToken: options.adminToken,
      clientAddress: options.clientAddress,
      console: { sessions, trustProxy: options.trustProxy }
    })
    const assets = yield* Effect.tryPromise(() => Assets.load(settings.directory)).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logWarning(`the console's files could not be read from ${settings.directory}; its pages answer 404`, error),
          undefined
        )
      )
    )
    const stage = SessionEndpoint.make({
      gate,
      sessions,
      trustProxy: options.trustProxy,
      clock: options.clock,
      maxAgeSeconds: Math.round(hours * 3600)
    })
    return {
      gate,
      console: {
        gate,
        session: Pipeline.runner(Pipeline.begin().then(stage)),
        pages: assets === undefined ? undefined : Pages.make(assets)
      }
    }
  })
