/**
 * The command line's output without colours or styles: when standard output is not a terminal, or
 * `NO_COLOR` is set to anything but the empty string (https://no-color.org). Effect's command line
 * decides on styles by its own rules (`FORCE_COLOR` styles piped help, say), so ANSI escapes are
 * taken out of what reaches the Console.
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"

// SGR sequences (colours, bold) and the other CSI sequences a renderer may emit.
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]/g

const strip = (value: unknown): unknown => typeof value === "string" ? value.replace(ANSI, "") : value

/** Whether output should be plain, from the environment and the stream it goes to. */
export const wanted = (env: NodeJS.ProcessEnv, stdout: { readonly isTTY?: boolean | undefined }): boolean =>
  (env.NO_COLOR !== undefined && env.NO_COLOR !== "") || stdout.isTTY !== true

const stripping = <A extends object>(target: A): A =>
  new Proxy(target, {
    get: (object, property) => {
      const value = Reflect.get(object, property)
      return typeof value === "function"
        ? (...args: Array<unknown>) => value.apply(object, args.map(strip))
        : value
    }
  })

/** Runs `self` with a Console that drops ANSI escapes from every string it is given. */
export const plain = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(Console.Console, (console) => Effect.provideService(self, Console.Console, stripping(console)))
