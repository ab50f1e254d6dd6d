/**
 * The bundle's code cache (bin/code-cache.cjs): the first run of a build, finding none, writes one
 * as it exits; the next run is compiled from it and leaves it as it is; a cache that is corrupt,
 * truncated, of another build of the bundle or of another Node, or that V8 itself refuses, is not
 * used: the run compiles the bundle from source, does what it was asked, and writes a good cache.
 * On a copy of the bundle in a directory of its own (the shipped one is left alone), running
 * `petstore --version` (the command line's path, which reads the version from the package.json).
 */
import { describe, expect, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import * as Zlib from "node:zlib"

const SERVER = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const SHIPPED = Path.join(SERVER, "dist-bundle/petstore.cjs")
const VERSION = (JSON.parse(Fs.readFileSync(Path.join(SERVER, "package.json"), "utf8")) as { version: string }).version

if (!Fs.existsSync(SHIPPED)) throw new Error(`${SHIPPED} is missing: run \`pnpm run build\` before this test`)

/** A copy of the bundle and its loader (no cache), as the package lays them out. */
const copy = () => {
  const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-code-cache-"))
  Fs.mkdirSync(Path.join(root, "bin"))
  Fs.mkdirSync(Path.join(root, "dist-bundle"))
  Fs.copyFileSync(Path.join(SERVER, "bin/code-cache.cjs"), Path.join(root, "bin/code-cache.cjs"))
  Fs.copyFileSync(SHIPPED, Path.join(root, "dist-bundle/petstore.cjs"))
  Fs.copyFileSync(Path.join(SERVER, "package.json"), Path.join(root, "package.json"))
  const bundle = Path.join(root, "dist-bundle/petstore.cjs")
  return { root, bundle, cache: `${bundle}.v8cache` }
}

/** `petstore --version` from the copy: its output, and how the bundle was compiled. */
const run = (at: ReturnType<typeof copy>) => {
  const stderr = Path.join(at.root, "stderr.txt")
  const fd = Fs.openSync(stderr, "w")
  try {
    const stdout = execFileSync(process.execPath, [Path.join(SERVER, "test/support/run-cached.cjs"), "--version"], {
      env: { ...process.env, NODE_OPTIONS: "", LOADER: Path.join(at.root, "bin/code-cache.cjs"), BUNDLE: at.bundle },
      stdio: ["ignore", "pipe", fd],
      timeout: 60_000
    }).toString()
    return { stdout: stdout.trim(), status: /code cache: (\w+)/.exec(Fs.readFileSync(stderr, "utf8"))?.[1] }
  } finally {
    Fs.closeSync(fd)
  }
}

/** The cache's header line and its V8 data. */
const parts = (file: string) => {
  const bytes = Fs.readFileSync(file)
  const end = bytes.indexOf(10)
  return { head: bytes.toString("latin1", 0, end), data: bytes.subarray(end + 1) }
}

/** A cache file of `head` (the CRC-32 made to match unless `crc` is given) and `data`. */
const write = (file: string, head: string, data: Buffer, crc: number = Zlib.crc32(data)) =>
  Fs.writeFileSync(file, Buffer.concat([Buffer.from(`${head.slice(0, head.lastIndexOf(" "))} ${crc}\n`, "latin1"), data]))

/** With a fresh copy whose first run has written its cache. */
const withWarmCopy = (body: (at: ReturnType<typeof copy>, good: Buffer) => void) => {
  const at = copy()
  try {
    expect(run(at)).toEqual({ stdout: VERSION, status: "absent" })
    const good = Fs.readFileSync(at.cache)
    body(at, good)
  } finally {
    Fs.rmSync(at.root, { recursive: true, force: true })
  }
}

/** The run after `spoil` is compiled from source, works, and leaves a cache the next run uses. */
const recovers = (at: ReturnType<typeof copy>, spoil: () => void) => {
  spoil()
  expect(run(at)).toEqual({ stdout: VERSION, status: "rejected" })
  expect(run(at)).toEqual({ stdout: VERSION, status: "used" })
}

describe("the bundle's code cache", () => {
  it("is written by the first run, used by the next, and left as it is", () => {
    withWarmCopy((at, good) => {
      const { head, data } = parts(at.cache)
      expect(head).toMatch(new RegExp(`^petstore-v8-cache-1 \\d+ [\\d.]+ ${process.version} ${process.arch} \\d+$`))
      expect(data.length).toBeGreaterThan(100_000)
      const written = Fs.statSync(at.cache).mtimeMs
      expect(run(at)).toEqual({ stdout: VERSION, status: "used" })
      expect(run(at)).toEqual({ stdout: VERSION, status: "used" })
      expect(Fs.readFileSync(at.cache).equals(good)).toBe(true)
      expect(Fs.statSync(at.cache).mtimeMs).toBe(written)
      expect(Fs.readdirSync(Path.dirname(at.bundle)).sort()).toEqual(["petstore.cjs", "petstore.cjs.v8cache"])
    })
  }, 120_000)

  it("is not used when a byte of it changed (its CRC-32), and is written again", () => {
    withWarmCopy((at, good) =>
      recovers(at, () => {
        const { head, data } = parts(at.cache)
        const flipped = Buffer.from(data)
        flipped[flipped.length >> 1] ^= 0xff
        write(at.cache, head, flipped, Zlib.crc32(data))
        expect(Fs.readFileSync(at.cache).equals(good)).toBe(false)
      }))
  }, 120_000)

  it("is not used when it is cut short, or empty", () => {
    withWarmCopy((at, good) => {
      recovers(at, () => Fs.writeFileSync(at.cache, good.subarray(0, good.length >> 1)))
      recovers(at, () => Fs.writeFileSync(at.cache, ""))
    })
  }, 120_000)

  it("is not used for another build of the bundle, or another Node", () => {
    withWarmCopy((at) => {
      recovers(at, () => {
        const stat = Fs.statSync(at.bundle)
        Fs.utimesSync(at.bundle, stat.atime, new Date(stat.mtimeMs - 60_000))
      })
      recovers(at, () => {
        const { head, data } = parts(at.cache)
        write(at.cache, head.replace(process.version, "v20.0.0"), data)
      })
    })
  }, 120_000)

  it("is not used when V8 refuses it (data that passes our checks but is not V8's), and is written again", () => {
    withWarmCopy((at) =>
      recovers(at, () => {
        const { head, data } = parts(at.cache)
        const foreign = Buffer.from(data)
        foreign.fill(0x5a, 0, 16)
        write(at.cache, head, foreign)
      }))
  }, 120_000)
})
