// A TypeDoc plugin for the API reference (`pnpm docs:api`):
// - a module, and a module re-exported as a namespace (`export * as Pets from "./Pets.js"`), is
//   documented by the comment at the top of its file, the Effect convention (a summary and
//   `@since`), which TypeDoc reads only from a file marked `@module`;
// - every export (each member of an entry point or of a namespace it exports) has a summary, a line
//   of text before its tags: a warning names each one that has none (and the build fails on warnings).
import * as Fs from "node:fs"
import { Comment, CommentTag, Converter, DeclarationReflection, ReflectionKind } from "typedoc"
import ts from "typescript"

/** The summary and block tags of a file's first doc comment, when the file starts with one. */
const fileComment = (text) => {
  const match = /^\s*\/\*\*([\s\S]*?)\*\//.exec(text)
  if (match === null) return undefined
  const lines = match[1].split("\n").map((line) => line.replace(/^\s*\* ?/, "")).join("\n").trim()
  const [summary, ...tags] = lines.split(/\n(?=@\w)/)
  if (summary.startsWith("@")) return undefined
  return new Comment(
    [{ kind: "text", text: summary.trim() }],
    tags.map((tag) => {
      const [, name, content] = /^(@\w+)\s*([\s\S]*)$/.exec(tag)
      return new CommentTag(name, [{ kind: "text", text: content.trim() }])
    })
  )
}

/** @param {import("typedoc").Application} app */
export const load = (app) => {
  checkSummaries(app)
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (!reflection.kindOf(ReflectionKind.Namespace | ReflectionKind.Module)) return
    const source = context.getSymbolFromReflection(reflection)?.declarations?.find(ts.isSourceFile)
    if (source === undefined) return
    // The module's own file comment wins: the comment TypeDoc found may be the index's, placed
    // before the first `export * as`.
    const comment = fileComment(Fs.readFileSync(source.fileName, "utf8"))
    if (comment !== undefined) reflection.comment = comment
  })
}

/** The summary of an export: its own comment's, or its first signature's (a function's comment sits there). */
const summaryOf = (reflection) => {
  const comment = reflection.comment ?? reflection.signatures?.find((signature) => signature.comment)?.comment
    ?? reflection.type?.declaration?.signatures?.find((signature) => signature.comment)?.comment
  return comment === undefined ? "" : Comment.combineDisplayParts(comment.summary).trim()
}

/** @param {import("typedoc").Application} app */
export const checkSummaries = (app) => {
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const report = (reflection) => {
      const name = `${context.project.packageName ?? context.project.name}: ${reflection.getFriendlyFullName()} (${ReflectionKind[reflection.kind]})`
      if (summaryOf(reflection) === "") app.logger.warn(`${name} has no summary line`)
    }
    for (const container of context.project.getReflectionsByKind(ReflectionKind.Module | ReflectionKind.Namespace)) {
      report(container)
      for (const child of container.children ?? []) {
        // A namespace is reported as a container; a reference points at an export documented where it is declared.
        if (child instanceof DeclarationReflection && !child.kindOf(ReflectionKind.Module | ReflectionKind.Namespace | ReflectionKind.Reference)) report(child)
      }
    }
  })
}
