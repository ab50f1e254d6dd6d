// A Stryker ignorer (`"ignorers": ["context-tag-keys"]` in stryker*.json): the key of a
// `Context.Tag("…")` is not mutated. A service's key only has to be unique in the process, and no
// behaviour depends on its text, so every such mutant survives without saying anything about the
// tests; as module-level code it would also run every test file, which makes the gate slower.
const REASON = "A Context.Tag key only has to be unique; no behaviour depends on its text"

const isContextTag = (callee) =>
  callee.type === "MemberExpression" &&
  callee.object.type === "Identifier" && callee.object.name === "Context" &&
  callee.property.type === "Identifier" && callee.property.name === "Tag"

export const strykerPlugins = [
  {
    kind: "Ignore",
    name: "context-tag-keys",
    value: {
      shouldIgnore: (path) =>
        path.isStringLiteral() && path.parentPath.isCallExpression() && isContextTag(path.parentPath.node.callee)
          ? REASON
          : undefined
    }
  }
]
