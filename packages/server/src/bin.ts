#!/usr/bin/env node
/**
 * The `petstore` command.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import * as PlainOutput from "./PlainOutput.js"
import * as ServeCommand from "./ServeCommand.js"

// `petstore serve` alone (how the server is started) needs no parsing: it runs without loading the
// command line (effect/cli and its platform services), which the other commands use.
// (No top-level `await`: the bundle of this entry is a CommonJS script, see scripts/bundle.mjs.)
const program: Effect.Effect<unknown, unknown> = ServeCommand.isServeAlone(process.argv)
  ? ServeCommand.run()
  : Effect.flatten(Effect.promise(async () => {
    const [{ cli }, NodeServices] = await Promise.all([import("./Cli.js"), import("@effect/platform-node/NodeServices")])
      .catch((error: unknown) => {
        // Not the command line's own failure (which it explains): said here, as error reporting is off.
        process.stderr.write(`petstore: the command line could not be loaded: ${String(error)}\n`)
        throw error
      })
    return Effect.provide(cli(process.argv), NodeServices.layer)
  }))

// The command line explains every failure itself (one line on stderr); only the exit code is left.
const withOutput = PlainOutput.wanted(process.env, process.stdout) ? PlainOutput.plain(program) : program
// A stop on SIGTERM or SIGINT (the main fiber interrupted, after draining) is the normal end: exit 0.
const teardown: Runtime.Teardown = (exit, onExit) =>
  Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
withOutput.pipe(NodeRuntime.runMain({ disableErrorReporting: true, teardown }))
