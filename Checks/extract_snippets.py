#!/usr/bin/env python3
"""Writes every Swift code block of README.md and of the DocC catalogs (Sources/*/*.docc)
into Checks/Snippets/Generated/<Document>/, one Swift module per document, for
scripts/check-snippets.sh to compile (against Checks/SwiftUIShim for SwiftUI code).

A block is compiled as it stands: a file of declarations at the top level of its
document's module. The HTML comment on the line before a fence (invisible in the rendered
page) says otherwise:

  <!-- snippet: body -->       statements: the body of an async throwing main-actor method
                               of `SnippetContext`, whose properties (`store`, ...) the
                               document's context file declares
  <!-- snippet: view -->       view content: the body of a `@ViewBuilder` property of
                               `SnippetContext` (SwiftUI)
  <!-- snippet: scene -->      scene content: the body of a `@SceneBuilder` property
  <!-- snippet: modifier -->   modifiers (lines starting with `.`), applied to a view
  <!-- snippet: case -->       `case` clauses of a reducer's switch over `SnippetAction`,
                               in a reducer of `SnippetState`/`SnippetEnvironment` whose
                               effects send `SnippetEffectAction`
  <!-- snippet: preview -->    a `#Preview { ... }` (no preview macro here): its closure
                               becomes a `@ViewBuilder` method
  <!-- snippet: skip: REASON --> not compiled; REASON is required (a Package.swift line, ...)

`<!-- snippet: body in TYPE -->` (and so on) extends the context file's TYPE instead of
`SnippetContext`: for an article whose fragments use several stores named `store`.

A document's context file, Checks/Snippets/Context/<Document>.swift, declares what its
prose assumes (`SnippetContext` and its properties, types the article only mentions). A
line `<!-- snippets: with README.md -->` in a document compiles the README's declaration
blocks (those without a marker), and its context file, into its module too (the articles that build on the README's quick start). Every module sees
Foundation and SwiduxSQLite (which re-exports Swidux).
"""
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "Checks" / "Snippets" / "Generated"
CONTEXT = ROOT / "Checks" / "Snippets" / "Context"
MARKER = re.compile(r"^<!--\s*snippet:\s*(?:(body|view|scene|modifier|case|preview)(?:\s+in\s+([A-Za-z_][A-Za-z0-9_]*))?|(skip:\s*\S.*?))\s*-->\s*$")
WITH = re.compile(r"^<!--\s*snippets:\s*with\s+(\S+)\s*-->\s*$", re.M)


def blocks(path):
    """(line, kind, text) of each ```swift block of the Markdown file at `path`."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        fence = re.match(r"^(\s*)```swift\s*$", lines[i])
        if not fence:
            if re.match(r"^\s*```swift\S", lines[i]):
                sys.exit(f"{path.relative_to(ROOT)}:{i + 1}: unknown info string {lines[i].strip()!r} (use ```swift and a <!-- snippet: ... --> marker)")
            i += 1
            continue
        indent = fence.group(1)
        j = i - 1
        while j >= 0 and lines[j].strip() == "":
            j -= 1
        kind, owner = "top", "SnippetContext"
        if j >= 0 and re.match(r"<!--\s*snippet:", lines[j].strip()):
            m = MARKER.match(lines[j].strip())
            if not m:
                sys.exit(f"{path.relative_to(ROOT)}:{j + 1}: unknown snippet marker {lines[j].strip()!r}")
            kind = m.group(1) or m.group(3)
            owner = m.group(2) or "SnippetContext"
        end = i + 1
        while end < len(lines) and lines[end].strip() != "```":
            end += 1
        body = [l[len(indent):] if l.startswith(indent) else l for l in lines[i + 1:end]]
        found.append((i + 1, kind, owner, "\n".join(body)))
        i = end + 1
    return found


def indented(text, by="        "):
    return "\n".join(by + l if l.strip() else "" for l in text.split("\n"))


def wrap(kind, owner, name, text):
    if kind == "top":
        return text
    # A wrapped block's leading imports stay at the top of its file.
    lines = text.split("\n")
    imports = []
    while lines and (lines[0].startswith("import ") or (imports and not lines[0].strip())):
        imports.append(lines.pop(0))
    header = "".join(l + "\n" for l in imports if l.strip())
    return header + wrapped(kind, name, "\n".join(lines)).replace("extension SnippetContext {", f"extension {owner} {{")


def wrapped(kind, name, text):
    if kind == "body":
        return f"extension SnippetContext {{\n    @MainActor func {name}() async throws {{\n{indented(text)}\n    }}\n}}"
    if kind == "view":
        return f"import SwiftUI\n\nextension SnippetContext {{\n    @MainActor @ViewBuilder var {name}: some View {{\n{indented(text)}\n    }}\n}}"
    if kind == "scene":
        return f"import SwiftUI\n\nextension SnippetContext {{\n    @MainActor @SceneBuilder var {name}: some Scene {{\n{indented(text)}\n    }}\n}}"
    if kind == "modifier":
        return f"import SwiftUI\n\nextension SnippetContext {{\n    @MainActor var {name}: some View {{\n        EmptyView()\n{indented(text)}\n    }}\n}}"
    if kind == "case":
        return ("extension SnippetContext {\n"
                f"    func {name}(state: inout SnippetState, action: SnippetAction, environment: SnippetEnvironment) -> Swidux.Effect<SnippetEffectAction>? {{\n"
                f"        switch action {{\n{indented(text, '        ')}\n        default: break\n        }}\n        return nil\n    }}\n}}")
    if kind == "preview":
        m = re.match(r"^#Preview\s*\{(.*)\}\s*$", text.strip(), re.S)
        if not m:
            sys.exit(f"{name}: a preview block must be one #Preview {{ ... }}")
        return f"import SwiftUI\n\nextension SnippetContext {{\n    @MainActor @ViewBuilder func {name}() -> some View {{{m.group(1)}}}\n}}"
    raise AssertionError(kind)


def module_name(doc):
    return "Snippets_" + re.sub(r"[^A-Za-z0-9]", "_", doc.stem)


def main():
    documents = [ROOT / "README.md"] + sorted(ROOT.glob("Sources/*/*.docc/*.md"))
    shutil.rmtree(OUT, ignore_errors=True)
    compiled = skipped = 0
    for doc in documents:
        found = blocks(doc)
        includes = [ROOT / w for w in WITH.findall(doc.read_text(encoding="utf-8"))]
        if not found:
            continue
        target = OUT / module_name(doc)
        target.mkdir(parents=True)
        sources = [(doc, found)] + [(inc, blocks(inc)) for inc in includes]
        for source, source_blocks in sources:
            prefix = re.sub(r"[^A-Za-z0-9]", "_", source.stem)
            for line, kind, owner, text in source_blocks:
                if source != doc and kind != "top":
                    continue   # an included document lends its declarations only
                if kind.startswith("skip"):
                    if source == doc:
                        skipped += 1
                    continue
                if source == doc:
                    compiled += 1
                name = f"snippet_{prefix}_{line}"
                origin = source.relative_to(ROOT)
                (target / f"{prefix}_{line}.swift").write_text(
                    f"// {origin}, line {line} ({kind}); generated by Checks/extract_snippets.py\n{wrap(kind, owner, name, text)}\n",
                    encoding="utf-8")
        implicit = ("@_exported import Foundation\n@_exported import SwiduxSQLite\n\n"
                    "#if !canImport(SwiftUI)\n"
                    "#error(\"SwiftUI is not on the import path: build with Checks/SwiftUIShim (scripts/check-snippets.sh)\")\n"
                    "#endif\n")
        (target / "Imports.swift").write_text(implicit, encoding="utf-8")
        shutil.copy(ROOT / "Checks" / "Snippets" / "AppleFoundation.swift", target)
        contexts = [CONTEXT / f"{source.stem}.swift" for source in [doc] + includes]
        contexts = [c for c in contexts if c.exists()]
        for context in contexts:
            shutil.copy(context, target / f"Context_{context.stem}.swift")
        if not any(re.search(r"(struct|class) SnippetContext\b", c.read_text(encoding="utf-8")) for c in contexts):
            (target / "Context_Default.swift").write_text("struct SnippetContext {}\n", encoding="utf-8")
    print(f"extract_snippets: {compiled} blocks to compile, {skipped} marked skip, from {len(documents)} documents")


if __name__ == "__main__":
    main()
