// A Stryker ignorer (`"ignorers": ["context-tag-keys"]` in stryker*.json): the key of a service
// (`Context.Service<…>()("…")`, `Context.Reference("…", …)`) is not mutated. A service's key only
// has to be unique in the process, and no behaviour depends on its text, so every such mutant
// survives without saying anything about the tests; as module-level code it would also run every
// test file, which makes the gate slower.
const REASON = "A service key only has to be unique; no behaviour depends on its text"

const KEYED = new Set(["Tag", "Service", "Reference"])

const isContextMember = (node) =>
  node.type === "MemberExpression" &&
  node.object.type === "Identifier" && node.object.name === "Context" &&
  node.property.type === "Identifier" && KEYED.has(node.property.name)

// `Context.Reference("key")`, or `Context.Service<…>()("key")`: the key is given to the call that
// `Context.Service<…>()` returns.
const isContextKeyCall = (callee) =>
  isContextMember(callee) || (callee.type === "CallExpression" && isContextMember(callee.callee))

export const strykerPlugins = [
  {
    kind: "Ignore",
    name: "context-tag-keys",
    value: {
      shouldIgnore: (path) =>
        path.isStringLiteral() && path.parentPath.isCallExpression() && isContextKeyCall(path.parentPath.node.callee)
          ? REASON
          : undefined
    }
  }
]
