#!/usr/bin/env node
// The `petstore` command: the bundled server (dist-bundle/petstore.cjs, which `pnpm build` writes),
// compiled from its V8 code cache when there is one (./code-cache.cjs); the compiled modules of
// dist/ (`dist/bin.js`) where there is no bundle (a package installed from its tarball, which ships
// dist/ only). CommonJS, as the bundle is: an ES module entry would start Node's ES module loader
// for nothing (about 3 MB of RSS). A file of the repository, so installing the workspace links the
// command before anything is built.
"use strict"
// First of all: the settings read only at a process's start, which may restart this process (./start-settings.cjs).
require("./start-settings.cjs").applyStartSettings()
const Fs = require("node:fs")
const Path = require("node:path")

const bundle = Path.join(__dirname, "../dist-bundle/petstore.cjs")
if (Fs.existsSync(bundle)) require("./code-cache.cjs").runMain(bundle)
else import("../dist/bin.js")
