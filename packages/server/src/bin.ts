#!/usr/bin/env node
/**
 * The `petstore` command.
 *
 * @since 1.0.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import { cli } from "./Cli.js"
import * as PlainOutput from "./PlainOutput.js"

// The command line explains every failure itself (one line on stderr); only the exit code is left.
const program = PlainOutput.wanted(process.env, process.stdout) ? PlainOutput.plain(cli(process.argv)) : cli(process.argv)
program.pipe(Effect.provide(NodeContext.layer), NodeRuntime.runMain({ disableErrorReporting: true }))
