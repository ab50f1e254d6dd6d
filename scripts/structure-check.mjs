#!/usr/bin/env node
// The structure check: over packages/*/src (or the folders given as arguments), reports
//   - import circles between a package's modules, type-only imports and re-exports included;
//   - functions over 120 lines (a nested function counts in its own right and inside its parent);
//   - files over 400 lines;
// each with its place, and exits 1 when it finds any. Read with TypeScript's own parser (the root
// `typescript` dev dependency); only relative specifiers are followed, since a workspace package
// imports another through its published entry points, and pnpm refuses a cycle between packages.
import * as fs from "node:fs"
import * as path from "node:path"
import ts from "typescript"

const MAX_FUNCTION_LINES = 120
const MAX_FILE_LINES = 400

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..")
const rel = (file) => path.relative(root, file)

/** The source folders to check: the arguments, else every `packages/<name>/src`. */
const sourceFolders = () => {
  const given = process.argv.slice(2)
  if (given.length > 0) return given.map((folder) => path.resolve(folder))
  const packages = path.join(root, "packages")
  return fs.readdirSync(packages)
    .map((name) => path.join(packages, name, "src"))
    .filter((folder) => fs.existsSync(folder))
    .sort()
}

const sourceFiles = (folder) =>
  fs.readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(m|c)?tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort()

const parse = (file) =>
  ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)

// ---- imports ------------------------------------------------------------------------------------

/** Every module specifier of a file: imports, re-exports and `import("…")` types or calls. */
const specifiers = (source) => {
  const found = []
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      found.push({ specifier: node.moduleSpecifier.text, node })
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      found.push({ specifier: node.argument.literal.text, node })
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments
      if (argument && ts.isStringLiteralLike(argument)) found.push({ specifier: argument.text, node })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** The file a relative specifier names (`./X.js` is `./X.ts`, a folder its `index.ts`), or undefined. */
const resolveRelative = (from, specifier) => {
  if (!specifier.startsWith(".")) return undefined
  const base = path.resolve(path.dirname(from), specifier)
  const stem = base.replace(/\.(m|c)?js$/, "")
  const candidates = [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, path.join(base, "index.ts")]
  return candidates.find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile())
}

/** Strongly connected components of more than one module, or of one that imports itself (Tarjan). */
const circles = (graph) => {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  const connect = (node) => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next)
        low.set(node, Math.min(low.get(node), low.get(next)))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node), index.get(next)))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component = []
      let member
      do {
        member = stack.pop()
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (graph.get(node) ?? new Set()).has(node)) components.push(component.sort())
    }
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node)
  return components
}

/** One shortest way round a component, from its first module back to it (breadth first). */
const shortestCycle = (graph, component) => {
  const members = new Set(component)
  const start = component[0]
  const previous = new Map()
  const queue = [start]
  while (queue.length > 0) {
    const node = queue.shift()
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (!members.has(next)) continue
      if (next === start) {
        const cycle = [start]
        for (let at = node; at !== start; at = previous.get(at)) cycle.splice(1, 0, at)
        return [...cycle, start]
      }
      if (!previous.has(next)) {
        previous.set(next, node)
        queue.push(next)
      }
    }
  }
  return [start, start]
}

// ---- functions ----------------------------------------------------------------------------------

const lineOf = (source, position) => source.getLineAndCharacterOfPosition(position).line + 1

/** A readable name for a function: its own, else the variable, property or call it is part of. */
const functionName = (node) => {
  if (node.name && ts.isIdentifier(node.name)) return containerPrefix(node) + node.name.text
  if (node.name && (ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) {
    return containerPrefix(node) + node.name.text
  }
  if (ts.isConstructorDeclaration(node)) return `${containerPrefix(node)}constructor`
  let at = node.parent
  const calls = []
  while (at) {
    if (ts.isVariableDeclaration(at) && ts.isIdentifier(at.name)) return [at.name.text, ...calls].join(" > ")
    if ((ts.isPropertyAssignment(at) || ts.isPropertyDeclaration(at)) && at.name && ts.isIdentifier(at.name)) {
      return [containerPrefix(at) + at.name.text, ...calls].join(" > ")
    }
    if (ts.isCallExpression(at)) calls.unshift(`${at.expression.getText().slice(0, 40)}(…)`)
    if (ts.isExportAssignment(at)) return ["export default", ...calls].join(" > ")
    if (ts.isFunctionLike(at) || ts.isSourceFile(at)) break
    at = at.parent
  }
  return ["(anonymous)", ...calls].join(" > ")
}

const containerPrefix = (node) => {
  const parent = node.parent
  if (parent && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent)) && parent.name) {
    return `${parent.name.text}.`
  }
  return ""
}

const isFunction = (node) =>
  ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

const longFunctions = (source) => {
  const found = []
  const visit = (node) => {
    if (isFunction(node) && node.body) {
      const start = lineOf(source, node.getStart(source))
      const end = lineOf(source, node.getEnd())
      const lines = end - start + 1
      if (lines > MAX_FUNCTION_LINES) found.push({ name: functionName(node), start, end, lines })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  // A function that is (nearly) all of its parent, as `make = () => Effect.gen(function* () {…})`,
  // is one finding: the parent's.
  return found.filter((inner) =>
    !found.some((outer) =>
      outer !== inner && outer.start <= inner.start && inner.end <= outer.end && inner.lines >= outer.lines - 3
    )
  )
}

// ---- the check ----------------------------------------------------------------------------------

const check = () => {
  const files = sourceFolders().flatMap(sourceFiles)
  const graph = new Map()
  const where = new Map()
  const problems = { circles: [], functions: [], files: [] }
  for (const file of files) {
    const source = parse(file)
    const edges = new Set()
    for (const { specifier, node } of specifiers(source)) {
      const target = resolveRelative(file, specifier)
      if (target === undefined) continue
      edges.add(target)
      if (!where.has(`${file}\0${target}`)) where.set(`${file}\0${target}`, lineOf(source, node.getStart(source)))
    }
    graph.set(file, edges)
    const lines = source.getLineStarts().length - (source.text.endsWith("\n") ? 1 : 0)
    if (lines > MAX_FILE_LINES) problems.files.push({ file, lines })
    for (const fn of longFunctions(source)) problems.functions.push({ file, ...fn })
  }
  for (const component of circles(graph)) {
    const cycle = shortestCycle(graph, component)
    const steps = cycle.slice(0, -1).map((from, i) => `${rel(from)}:${where.get(`${from}\0${cycle[i + 1]}`)}`)
    problems.circles.push({ component, steps, cycle })
  }
  return { files: files.length, problems }
}

const report = ({ files, problems }) => {
  for (const { component, steps, cycle } of problems.circles) {
    console.log(`import circle (${component.length} modules): ${cycle.map((file) => path.basename(file)).join(" -> ")}`)
    for (const step of steps) console.log(`  ${step}`)
    const rest = component.filter((file) => !cycle.includes(file))
    if (rest.length > 0) console.log(`  and in the same circle: ${rest.map(rel).join(", ")}`)
  }
  for (const { file, name, start, lines } of problems.functions) {
    console.log(`function over ${MAX_FUNCTION_LINES} lines: ${rel(file)}:${start} ${name} (${lines} lines)`)
  }
  for (const { file, lines } of problems.files) {
    console.log(`file over ${MAX_FILE_LINES} lines: ${rel(file)} (${lines} lines)`)
  }
  const total = problems.circles.length + problems.functions.length + problems.files.length
  console.log(
    `structure check: ${files} files, ${problems.circles.length} import circle(s), ` +
      `${problems.functions.length} function(s) over ${MAX_FUNCTION_LINES} lines, ` +
      `${problems.files.length} file(s) over ${MAX_FILE_LINES} lines`
  )
  return total === 0 ? 0 : 1
}

process.exitCode = report(check())
