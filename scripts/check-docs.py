#!/usr/bin/env python3
"""`make docs`: builds the DocC documentation of every public library (swift-docc-plugin) into
.build/docs/<Target>.doccarchive, with DocC's warnings as errors (a broken link, an undocumented
parameter), and fails on any public symbol without a doc comment, read from DocC's documentation
coverage. Symbols that take their documentation from the standard library (`hash(into:)`,
`hashValue`, `!=`, literal initializers, Sequence's methods) and extensions of other modules are
not ours to document."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARGETS = ["MicroHTTP", "FlowCore", "FlowStore", "MustacheTemplates", "FlowWeb", "FlowStoreSQLite", "FlowStorePostgres",
           "FlowTesting", "FlowExplorer", "FlowServerRuntime", "FlowServerPostgres"]
OUTPUT = ROOT / ".build" / "docs"
INHERITED = {"hash(into:)", "hashValue", "!=(_:_:)", "init(unicodeScalarLiteral:)", "init(extendedGraphemeClusterLiteral:)",
             "flatMap(_:)", "filter(_:)", "formatted(_:)", "formatted()", "trimPrefix(while:)", "trimmingPrefix(while:)"}


def main():
    command = ["swift", "package", "--disable-sandbox", "generate-documentation"]
    for target in TARGETS:
        command += ["--target", target]
    command += ["--output-path", str(OUTPUT), "--warnings-as-errors", "--enable-inherited-docs",
                "--experimental-documentation-coverage", "--coverage-summary-level", "none"]
    built = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if built.returncode != 0:
        print(built.stdout[-20000:], built.stderr[-20000:], sep="\n")
        sys.exit("make docs: DocC reported problems (above)")
    undocumented = []
    for target in TARGETS:
        coverage = json.loads((OUTPUT / f"{target}.doccarchive" / "documentation-coverage.json").read_text())
        for entry in coverage:
            kind = entry["kind"]
            if not kind["isSymbol"] or entry.get("hasAbstract") or kind["name"].startswith("Extended"):
                continue
            if entry["title"] in INHERITED:
                continue
            undocumented.append(f"{kind['name']} {entry['referencePath'].split('/documentation/', 1)[1]}")
    if undocumented:
        print("\n".join(sorted(undocumented)))
        sys.exit(f"make docs: {len(undocumented)} public symbols have no doc comment (above)")
    print(f"documentation of {len(TARGETS)} libraries in {OUTPUT.relative_to(ROOT)}: every public symbol documented, no warnings")


if __name__ == "__main__":
    main()
