#!/usr/bin/env python3
"""Every command output shown in README.md and Docs/ is written here, from the bundled sample.

A Markdown file marks an example with HTML comments just before a fenced block:

    <!-- example-setup: fetchlab import --db sample.sqlite Datasets/sample -->
    <!-- example: fetchlab inspect --db sample.sqlite --top 2 -->
    ```
    (replaced by "$ COMMAND" and what it printed, stdout and stderr in order)
    ```

- ``example-setup`` runs a command and shows nothing (it must exit 0);
- ``example`` runs a command and shows it with its output (it must exit 0);
- ``example-fails`` the same, for a command that must exit non-zero (an error shown on purpose);
- ``example-only: REGEX`` on the line before ``example`` keeps only the lines of its output from the
  first that matches REGEX up to the next blank line (a part of a long output, shown as it is);
  several ``example-only`` lines keep several parts, in their order, a line "…" between them.

Consecutive ``example`` lines fill one block, a blank line between them. Each Markdown file runs
in its own scratch directory, in order, with ``fetchlab`` on PATH (the binary just built),
``Datasets`` and ``example-data`` linked to the repository's ``Datasets`` and ``Docs/example-data``
(small files in the shapes of real logs, written by its scripts), TZ=UTC and a private TMPDIR.

    Docs/examples.sh            rewrite every block (and Docs/report.png, see report-screenshot.sh)
    Docs/examples.sh --check    fail, showing the differences, when a block differs from what the
                                tool prints now (CI runs this)

In check mode, figures that change from run to run (elapsed times, rates, the time a run was
stored) are compared as placeholders; everything else must match to the character.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARK = re.compile(r"^<!-- (example|example-setup|example-fails|example-only): (.*) -->$")

# What differs between two runs of the same command on the same data.
VOLATILE = [
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:s|ms)\b(?= \(| in |,|\)|$| —| -)"), "<time>"),
    (re.compile(r"in \d+(?:\.\d+)? ?(?:s|ms|min)\b"), "in <time>"),
    (re.compile(r"[\d,]+(?:\.\d+)? (?:rows|records|events|launches|steps)/s\b"), "<rate>"),
    (re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b"), "<timestamp>"),
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:MB|KB|GB) peak\b"), "<memory> peak"),
]


def masked(text: str) -> str:
    for pattern, placeholder in VOLATILE:
        text = pattern.sub(placeholder, text)
    return text


class Failure(Exception):
    pass


class Runner:
    """Runs a file's commands in one scratch directory."""

    def __init__(self, binary: Path, doc: Path):
        self.dir = Path(tempfile.mkdtemp(prefix="fetchlab-examples-"))
        (self.dir / "bin").mkdir()
        (self.dir / "tmp").mkdir()
        os.symlink(binary, self.dir / "bin" / "fetchlab")
        os.symlink(ROOT / "Datasets", self.dir / "Datasets")
        os.symlink(ROOT / "Docs" / "example-data", self.dir / "example-data")
        self.doc = doc
        self.env = {
            "PATH": f"{self.dir / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": str(self.dir),
            "TMPDIR": str(self.dir / "tmp"),
            "TZ": "UTC",
            "LC_ALL": "C.UTF-8",
            "LANG": "C.UTF-8",
            "NO_COLOR": "1",
        }

    def run(self, command: str, expect_failure: bool, line: int) -> str:
        # Line-buffered, so that stdout and stderr interleave as on a terminal.
        stdbuf = ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []
        done = subprocess.run(
            stdbuf + ["bash", "-o", "pipefail", "-c", command],
            cwd=self.dir,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        out = done.stdout.decode("utf-8", errors="replace")
        out = out.replace(str(self.dir) + "/", "").replace(str(self.dir), ".")
        out = out.replace(str(ROOT) + "/", "").replace(str(ROOT), ".")
        failed = done.returncode != 0
        if failed != expect_failure:
            what = "exited 0, but is marked example-fails" if expect_failure else f"exited {done.returncode}"
            raise Failure(f"{self.doc.relative_to(ROOT)}:{line}: `{command}` {what}:\n{out}")
        return out

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def render(doc: Path, binary: Path, progress) -> str:
    """The file with every example block written anew."""
    lines = doc.read_text().split("\n")
    out: list[str] = []
    runner = None
    i = 0
    try:
        while i < len(lines):
            m = MARK.match(lines[i])
            if not m:
                out.append(lines[i])
                i += 1
                continue
            runner = runner or Runner(binary, doc)
            if m.group(1) == "example-setup":
                out.append(lines[i])
                progress(f"{doc.relative_to(ROOT)}: {m.group(2)}")
                runner.run(m.group(2), False, i + 1)
                i += 1
                continue
            shown: list[str] = []
            only: list[re.Pattern] = []
            while i < len(lines) and (m := MARK.match(lines[i])) and m.group(1) != "example-setup":
                out.append(lines[i])
                kind, command = m.group(1), m.group(2)
                i += 1
                if kind == "example-only":
                    only.append(re.compile(command))
                    continue
                progress(f"{doc.relative_to(ROOT)}: {command}")
                text = runner.run(command, kind == "example-fails", i)
                if only:
                    text = "\n…\n".join(excerpt(text, pattern, doc, i) for pattern in only)
                    only = []
                if shown:
                    shown.append("")
                shown.append(f"$ {command}")
                shown.extend(text.rstrip("\n").split("\n") if text.strip() else [])
            if i >= len(lines) or not lines[i].startswith("```"):
                raise Failure(f"{doc.relative_to(ROOT)}:{i + 1}: an example marker must be followed by a ``` block")
            fence = lines[i]
            end = i + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            if end >= len(lines):
                raise Failure(f"{doc.relative_to(ROOT)}:{i + 1}: the block is never closed")
            out.append(fence)
            out.extend(shown)
            out.append(lines[end])
            i = end + 1
    finally:
        if runner:
            runner.close()
    return "\n".join(out)


def excerpt(text: str, pattern: re.Pattern, doc: Path, line: int) -> str:
    rows = text.split("\n")
    for start, row in enumerate(rows):
        if pattern.search(row):
            end = start
            while end < len(rows) and rows[end].strip():
                end += 1
            return "\n".join(rows[start:end])
    raise Failure(f"{doc.relative_to(ROOT)}:{line}: no line of the output matches {pattern.pattern!r}")


def documents() -> list[Path]:
    docs = [ROOT / "README.md"] + sorted((ROOT / "Docs").rglob("*.md"))
    return [d for d in docs if any(MARK.match(line) for line in d.read_text().split("\n"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", required=True, type=Path, help="the fetchlab binary")
    parser.add_argument("--check", action="store_true", help="fail when a block is stale; write nothing")
    parser.add_argument("files", nargs="*", type=Path, help="only these Markdown files")
    args = parser.parse_args()
    binary = args.bin.resolve()
    tty = sys.stderr.isatty()

    def progress(text: str):
        if tty:
            sys.stderr.write(f"\r\033[K{text[:150]}")
            sys.stderr.flush()

    stale = 0
    docs = [f.resolve() for f in args.files] or documents()
    for doc in docs:
        before = doc.read_text()
        try:
            after = render(doc, binary, progress)
        except Failure as failure:
            progress("")
            print(f"examples: {failure}", file=sys.stderr)
            return 1
        progress("")
        name = doc.relative_to(ROOT)
        if args.check:
            if masked(before) != masked(after):
                stale += 1
                diff = difflib.unified_diff(
                    before.split("\n"), after.split("\n"), f"{name} (in the repository)", f"{name} (what fetchlab prints now)", lineterm="", n=1
                )
                print("\n".join(diff), file=sys.stderr)
        elif after != before:
            doc.write_text(after)
            print(f"{name}: examples rewritten", file=sys.stderr)
    if stale:
        print(f"examples: {stale} file(s) show output that fetchlab no longer prints; run Docs/examples.sh and commit", file=sys.stderr)
        return 1
    print(f"examples: {len(docs)} file(s) {'match what fetchlab prints' if args.check else 'written'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
