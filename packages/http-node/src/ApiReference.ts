/**
 * The offline API reference page, rendered from the OpenAPI document: one self-contained HTML page
 * with inline CSS and no scripts, fonts or other external resources, so it works air-gapped.
 *
 * @since 1.0.0
 */
import type { Json, JsonObject, OpenApiDocument, Operation, Parameter, Response } from "./OpenApiDocument.js"

// ---------------------------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------------------------

const ENTITIES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

/** Escapes text for element content and quoted attribute values. */
const escape = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c]!)

/** Inline markdown (`code`, **strong**) on already escaped text, so no markup can come from the input. */
const inline = (text: string): string =>
  escape(text).replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")

const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

const HEADING = /^(#{1,6})\s+(.*)$/
const LIST_ITEM = /^[-*] /

const cells = (row: string): ReadonlyArray<string> =>
  row.trim().replace(/^\|/, "").replace(/(?<!\\)\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"))

/** The markdown subset the document's descriptions use: headings, paragraphs, lists and tables. */
const markdown = (text: string, idPrefix: string): string => {
  const lines = text.split("\n")
  const html: Array<string> = []
  let i = 0
  const take = (keep: (line: string) => boolean): Array<string> => {
    const block: Array<string> = []
    while (i < lines.length && keep(lines[i]!)) block.push(lines[i++]!)
    return block
  }
  while (i < lines.length) {
    const line = lines[i]!
    const heading = HEADING.exec(line)
    if (line.trim() === "") {
      i++
    } else if (heading !== null) {
      const level = Math.min(6, heading[1]!.length + 1)
      html.push(`<h${level} id="${escape(`${idPrefix}-${slug(heading[2]!)}`)}">${inline(heading[2]!)}</h${level}>`)
      i++
    } else if (line.startsWith("|")) {
      const rows = take((l) => l.startsWith("|")).map(cells)
      const body = rows.slice(1).filter((row) => !row.every((c) => /^:?-+:?$/.test(c)))
      html.push(table(rows[0]!.map(inline), body.map((row) => row.map(inline))))
    } else if (LIST_ITEM.test(line)) {
      const items = take((l) => LIST_ITEM.test(l)).map((l) => `<li>${inline(l.slice(2))}</li>`)
      html.push(`<ul>${items.join("")}</ul>`)
    } else {
      const paragraph = take((l) => l.trim() !== "" && !HEADING.test(l) && !l.startsWith("|") && !LIST_ITEM.test(l))
      html.push(`<p>${inline(paragraph.join(" "))}</p>`)
    }
  }
  return html.join("\n")
}

/** Headings of a markdown text, for the table of contents. */
const headings = (text: string): ReadonlyArray<string> =>
  text.split("\n").flatMap((line) => {
    const match = HEADING.exec(line)
    return match === null ? [] : [match[2]!]
  })

const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  `<table><thead><tr>${header.map((h) => `<th>${h}</th>`).join("")}</tr></thead><tbody>` +
  rows.map((row) => `<tr>${row.map((c) => `<td>${c}</td>`).join("")}</tr>`).join("") +
  `</tbody></table>`

const code = (text: string): string => `<code>${escape(text)}</code>`

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const isObject = (u: Json | undefined): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)
const objects = (u: Json | undefined): ReadonlyArray<JsonObject> => Array.isArray(u) ? u.filter(isObject) : []
const text = (u: Json | undefined): string | undefined => typeof u === "string" ? u : undefined
const componentName = (ref: string): string => ref.slice(ref.lastIndexOf("/") + 1)

/** A one-line type: `Pet`, `array of Pet`, `integer (int64)`, `"a" | "b"`, with links to components. */
const typeOf = (schema: JsonObject): string => {
  const members = (key: string, separator: string) => objects(schema[key]).map(typeOf).join(separator)
  const ref = text(schema.$ref)
  const base = ref !== undefined
    ? `<a href="#schema-${escape(slug(componentName(ref)))}">${escape(componentName(ref))}</a>`
    : Array.isArray(schema.allOf)
    ? members("allOf", " and ")
    : Array.isArray(schema.anyOf)
    ? members("anyOf", " or ")
    : Array.isArray(schema.oneOf)
    ? members("oneOf", " or ")
    : Array.isArray(schema.enum)
    ? schema.enum.map((v) => code(JSON.stringify(v))).join(" | ")
    : schema.type === "array"
    ? `array of ${isObject(schema.items) ? typeOf(schema.items) : "any"}`
    : typeof schema.type === "string"
    ? escape(schema.type) + (typeof schema.format === "string" ? ` (${escape(schema.format)})` : "")
    : isObject(schema.properties)
    ? "object"
    : "any"
  return schema.nullable === true ? `${base} | null` : base
}

/** Validation keywords in words, each already escaped. */
const constraints = (schema: JsonObject): ReadonlyArray<string> => {
  const found: Array<string> = []
  const value = (v: Json | undefined) => code(JSON.stringify(v))
  if (typeof schema.minimum === "number") found.push(`${schema.exclusiveMinimum === true ? "&gt;" : "≥"} ${schema.minimum}`)
  if (typeof schema.maximum === "number") found.push(`${schema.exclusiveMaximum === true ? "&lt;" : "≤"} ${schema.maximum}`)
  if (typeof schema.multipleOf === "number") found.push(`multiple of ${schema.multipleOf}`)
  if (typeof schema.minLength === "number") found.push(`length ≥ ${schema.minLength}`)
  if (typeof schema.maxLength === "number") found.push(`length ≤ ${schema.maxLength}`)
  if (typeof schema.pattern === "string") found.push(`pattern ${code(schema.pattern)}`)
  if (typeof schema.minItems === "number") found.push(`items ≥ ${schema.minItems}`)
  if (typeof schema.maxItems === "number") found.push(`items ≤ ${schema.maxItems}`)
  if (schema.uniqueItems === true) found.push("unique items")
  if (schema.additionalProperties === false) found.push("no other fields")
  if (schema.readOnly === true) found.push("read-only")
  if (schema.writeOnly === true) found.push("write-only")
  if ("default" in schema) found.push(`default ${value(schema.default)}`)
  if ("example" in schema) found.push(`example ${value(schema.example)}`)
  return found
}

const described = (description: string | undefined): string =>
  description === undefined ? "" : `<p>${inline(description)}</p>`

/** A schema: its type and constraints, and a table of its properties when it has any. */
const schemaBlock = (schema: JsonObject): string => {
  const head = `<p class="type">${typeOf(schema)}${constraints(schema).map((c) => ` · ${c}`).join("")}</p>` +
    described(text(schema.description))
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : []
  if (properties.length === 0) return head
  const required = new Set(Array.isArray(schema.required) ? schema.required : [])
  return head + table(
    ["Field", "Type", "Constraints", "Description"],
    properties.map(([name, property]) => {
      const p = isObject(property) ? property : {}
      return [
        code(name) + (required.has(name) ? ` <span class="badge required">required</span>` : ""),
        typeOf(p),
        constraints(p).join(", "),
        inline(text(p.description) ?? "")
      ]
    })
  )
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

type Entry = { readonly method: string; readonly path: string; readonly op: Operation }

const entries = (document: OpenApiDocument): ReadonlyArray<Entry> =>
  Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) => op === undefined ? [] : [{ method, path, op }])
  )

const badges = (op: Operation): string =>
  (op.deprecated === true ? ` <span class="badge deprecated">deprecated</span>` : "") +
  (typeof op["x-stability"] === "string" ? ` <span class="badge stability">${escape(op["x-stability"])}</span>` : "")

const parameters = (params: ReadonlyArray<Parameter>): string =>
  table(
    ["Name", "In", "Type", "Constraints", "Description"],
    params.map((p) => [
      code(p.name) + (p.required ? ` <span class="badge required">required</span>` : ""),
      escape(p.in),
      typeOf(p.schema),
      constraints(p.schema).join(", "),
      inline(p.description ?? text(p.schema.description) ?? "")
    ])
  )

const body = (content: Response["content"]): string =>
  Object.entries(content ?? {}).map(([type, media]) => `${code(type)} ${typeOf(media.schema)}`).join("<br>")

type HeaderComponents = OpenApiDocument["components"]["headers"]

/** Links to the headers' components; one a response sends only sometimes is marked so. */
const headerLinks = (
  headers: ReadonlyArray<readonly [string, { readonly $ref: string }]>,
  components: HeaderComponents
): string =>
  headers.map(([name, header]) => {
    const component = componentName(header.$ref)
    const sometimes = components[component]?.required === true ? "" : " (sometimes)"
    return `<a href="#header-${escape(slug(component))}">${escape(name)}</a>${sometimes}`
  }).join(", ")

/**
 * The responses. Headers every response sends always (the `default` one, answered by the HTTP
 * layer, aside) are listed once, above the table; the rest in each row.
 */
const responses = (all: Operation["responses"], components: HeaderComponents): string => {
  const list = Object.entries(all)
  const answered = list.filter(([status]) => status !== "default")
  const shared = Object.entries(answered[0]?.[1].headers ?? {}).filter(([name, header]) =>
    components[componentName(header.$ref)]?.required === true &&
    answered.every(([, response]) => response.headers[name] !== undefined)
  )
  const sharedRefs = new Map(shared.map(([name, header]) => [name, header.$ref]))
  const but = answered.length < list.length ? " but `default`" : ""
  const sometimes = answered.some(([, r]) => shared.some(([name, h]) => r.headers[name]?.$ref !== h.$ref))
    ? " (the rows that list them again send them only sometimes)"
    : ""
  return (shared.length === 0 ? "" : `<p>${inline(`On every response${but}:`)} ${headerLinks(shared, components)}${sometimes}</p>`) +
    table(
      ["Status", "Description", "Body", "More headers"],
      list.map(([status, response]) => [
        `<span class="status s${escape(status.slice(0, 1))}">${escape(status)}</span>`,
        inline(response.description),
        body(response.content),
        headerLinks(Object.entries(response.headers).filter(([name, h]) => sharedRefs.get(name) !== h.$ref), components)
      ])
    )
}

const operation = (components: HeaderComponents) => ({ method, op, path }: Entry): string => {
  const security = (op.security ?? []).flatMap((requirement) => Object.keys(requirement)).map(code).join(", ")
  const request = op.requestBody === undefined ? "" :
    `<h4>Request body${op.requestBody.required ? " (required)" : ""}</h4>` +
    Object.entries(op.requestBody.content).map(([type, media]) =>
      isObject(media.schema.properties)
        ? `<p>${code(type)}</p>${schemaBlock(media.schema)}`
        : `<p>${code(type)} ${typeOf(media.schema)}</p>`
    ).join("")
  return `<section class="op" id="op-${escape(slug(op.operationId))}">
<h3><span class="method ${escape(method)}">${escape(method.toUpperCase())}</span> ${code(path)}${badges(op)}</h3>
<p class="summary">${inline(op.summary ?? "")}</p>
<p class="meta">Operation ${code(op.operationId)} · Authentication: ${security || "none"}</p>
${op.description === undefined ? "" : markdown(op.description, `op-${slug(op.operationId)}`)}
${op.parameters === undefined || op.parameters.length === 0 ? "" : `<h4>Parameters</h4>${parameters(op.parameters)}`}
${request}
<h4>Responses</h4>${responses(op.responses, components)}
</section>`
}

// ---------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------

const STYLE = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d232a;margin:0;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:15rem;flex:none;padding:1rem;background:#f4f6f8;
border-right:1px solid #dde2e7;box-sizing:border-box;font-size:14px}
nav a{display:block;color:#2a4d6e;text-decoration:none;padding:.1rem 0}nav .sub{padding-left:.8rem}
main{padding:1rem 2rem 4rem;max-width:62rem;min-width:0}
h1{margin-bottom:.2rem}h2{border-bottom:1px solid #dde2e7;margin-top:2.5rem}
code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eef1f4;padding:0 .25rem;border-radius:3px}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem;font-size:14px}
th,td{border:1px solid #dde2e7;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f4f6f8}
.op{border:1px solid #dde2e7;border-radius:6px;padding:0 1rem;margin:1rem 0}
.method{font:bold 13px ui-monospace,monospace;color:#fff;border-radius:3px;padding:.1rem .4rem;background:#555}
.get{background:#2f7d32}.post{background:#1f5fa8}.put,.patch{background:#9a6a00}.delete{background:#b3261e}
.badge{font-size:12px;border-radius:3px;padding:0 .35rem;border:1px solid}
.deprecated{color:#b3261e}.stability{color:#7a4fb5}.required{color:#555}
.status{font-weight:bold}.s2{color:#2f7d32}.s4{color:#9a6a00}.s5{color:#b3261e}
.summary{font-weight:600}.meta,.type{color:#4a5560}`

/**
 * Renders the reference page of `document`. Every text taken from the document is escaped.
 *
 * @category rendering
 * @since 1.0.0
 */
export const render = (document: OpenApiDocument): string => {
  const ops = entries(document)
  const title = `${document.info.title} ${document.info.version}`
  const declared = new Set(document.tags.map((tag) => tag.name))
  const untagged = ops.filter((e) => !e.op.tags.some((t) => declared.has(t)))
  const groups = [
    ...document.tags.map((tag) => ({ ...tag, ops: ops.filter((e) => e.op.tags.includes(tag.name)) })),
    ...(untagged.length === 0 ? [] : [{ name: "other", description: undefined, ops: untagged }])
  ]
  const schemes = Object.entries(document.components.securitySchemes)
  const open = ops.filter((e) => (e.op.security ?? []).length === 0).map((e) => code(e.op.operationId))
  const nav = [
    `<a href="#overview">Overview</a>`,
    ...headings(document.info.description).map((h) =>
      `<a class="sub" href="#overview-${escape(slug(h))}">${inline(h)}</a>`
    ),
    `<a href="#servers">Servers</a>`,
    `<a href="#authentication">Authentication</a>`,
    ...groups.flatMap((g) => [
      `<a href="#tag-${escape(slug(g.name))}">${escape(g.name)}</a>`,
      ...g.ops.map((e) =>
        `<a class="sub" href="#op-${escape(slug(e.op.operationId))}">${escape(e.op.operationId)}</a>`
      )
    ]),
    `<a href="#schemas">Schemas</a>`,
    `<a href="#headers">Response headers</a>`
  ]
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · API reference</title>
<style>${STYLE}</style>
</head>
<body>
<nav>${nav.join("\n")}</nav>
<main>
<h1>${escape(document.info.title)}</h1>
<p class="meta">Version ${code(document.info.version)} · OpenAPI ${code(document.openapi)}</p>
<section id="overview">
${markdown(document.info.description, "overview")}
</section>
<h2 id="servers">Servers</h2>
${table(["URL", "Description"], document.servers.map((s) => [code(s.url), inline(s.description)]))}
<h2 id="authentication">Authentication</h2>
${
    table(
      ["Scheme", "Type", "Description"],
      schemes.map(([name, s]) => [
        code(name),
        escape([s.type, s.scheme, s.bearerFormat === undefined ? undefined : `format: ${s.bearerFormat}`].filter(
          (x) => x !== undefined
        ).join(", ")),
        inline(s.description ?? "")
      ])
    )
  }
<p>${open.length === 0 ? "Every operation requires authentication." : `Without authentication: ${open.join(", ")}.`}</p>
${
    groups.map((g) =>
      `<h2 id="tag-${escape(slug(g.name))}">${escape(g.name)}</h2>\n${described(g.description)}\n` +
      (g.ops.length === 0 ? `<p class="meta">Navigation group: no operations.</p>` : g.ops.map(operation(document.components.headers)).join("\n"))
    ).join("\n")
  }
<h2 id="schemas">Schemas</h2>
${
    Object.entries(document.components.schemas).map(([name, schema]) =>
      `<h3 id="schema-${escape(slug(name))}">${escape(name)}</h3>\n${schemaBlock(schema)}`
    ).join("\n")
  }
<h2 id="headers">Response headers</h2>
${
    table(
      ["Component", "Sent", "Type", "Description"],
      Object.entries(document.components.headers).map(([name, header]) => [
        `<span id="header-${escape(slug(name))}">${code(name)}</span>`,
        header.required === true ? "always" : "sometimes",
        typeOf(header.schema) + (header.example === undefined ? "" : ` · example ${code(String(header.example))}`),
        inline(header.description)
      ])
    )
  }
</main>
</body>
</html>
`
}
