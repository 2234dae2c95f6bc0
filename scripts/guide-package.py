#!/usr/bin/env python3
"""Builds the package of a guide article as its reader would: in WORKDIR (beside a `FlowServer`
link to this repository, where the article's Package.swift looks for it), run the article's `sh`
blocks up to its "Run it" section (or those of SECTION only), in order, in one shell; write each
other code block to the file the line before it names (a line ending in "`PATH`:"). Prints the
package's folder.

    scripts/guide-package.py Sources/FlowWeb/FlowWeb.docc/GettingStarted.md .build/guide
    scripts/guide-package.py README.md .build/readme "The smallest app"

The package's own .build is kept from one run to the next (so a rebuild is incremental);
everything else is made afresh."""
import pathlib
import re
import shutil
import subprocess
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n", re.S | re.M)
FILE_NAME = re.compile(r"`([^`\s]+)`:\s*$")


def blocks(article):
    """(language, code, the line before it, the section it is in) for each fenced block."""
    for match in FENCE.finditer(article):
        before = article[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        sections = re.findall(r"^#{2,3} (.+)$", article[:match.start()], re.M)
        yield match.group(1), match.group(2), before, sections[-1] if sections else ""


def build(article_path, workdir, only=None):
    article = pathlib.Path(article_path).read_text()
    workdir = pathlib.Path(workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    link = workdir / "FlowServer"
    if not link.is_symlink():
        link.symlink_to(REPOSITORY)
    commands, files = [], []
    for language, code, before, section in blocks(article):
        if only is not None and section != only:
            continue
        if section == "Run it":
            break
        if language == "sh":
            commands.append(code)
            continue
        name = FILE_NAME.search(before)
        if not name:
            sys.exit(f"a {language or 'plain'} block of {article_path} follows no line naming its file: {before!r}")
        files.append((name.group(1), code))
    # The commands make the package; its folder is where they end.
    kept = workdir / ".package-build"
    for child in workdir.iterdir():
        if child.name in ("FlowServer", kept.name):
            continue
        build_folder = child / ".build"
        if build_folder.is_dir() and not kept.exists():
            build_folder.rename(kept)
        shutil.rmtree(child)
    script = "set -e\n" + "\n".join(commands) + "\npwd\n"
    result = subprocess.run(["bash", "-c", script], cwd=workdir, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the article's commands failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    package = pathlib.Path(result.stdout.strip().splitlines()[-1])
    for name, code in files:
        target = package / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(code)
    if kept.exists():
        kept.rename(package / ".build")
    return package


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    print(build(*sys.argv[1:]))
