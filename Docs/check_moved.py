#!/usr/bin/env python3
"""Checks that every paragraph of an old README lives on in the new README or Docs/**/*.md.

Usage: python3 Docs/check_moved.py [REV]   (default REV: main; run from the repository's top)

A paragraph (text between blank lines, outside code fences; a fenced block is one paragraph;
a list is split into its items, a table into its rows) counts as kept when its text,
whitespace-normalised, with Markdown link targets and heading marks removed, occurs in the
concatenation of the new files, normalised the same way. Prints the ones that do not.
"""
import glob, re, subprocess, sys

def norm(text):
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](target) -> text
    text = re.sub(r"(?m)^#+ ", "", text)
    return " ".join(text.split())

def units(text):
    out, block, fence = [], [], False
    def flush():
        if not block: return
        if fence or block[0].startswith("```"):
            out.append("\n".join(block))
        elif all(l.startswith("|") for l in block):
            out.extend(block)
        elif block[0].startswith("- "):
            item = []
            for l in block:
                if l.startswith("- ") and item:
                    out.append("\n".join(item)); item = []
                item.append(l)
            out.append("\n".join(item))
        else:
            out.append("\n".join(block))
        block.clear()
    for line in text.split("\n"):
        if line.startswith("```"):
            if fence:
                block.append(line); fence = False; flush(); continue
            flush(); fence = True; block.append(line); continue
        if fence:
            block.append(line); continue
        if line.strip() == "":
            flush()
        else:
            block.append(line)
    flush()
    return [u for u in out if u.strip()]

rev = sys.argv[1] if len(sys.argv) > 1 else "main"
old = subprocess.run(["git", "show", f"{rev}:README.md"], capture_output=True, text=True, check=True).stdout
new = "\n".join(open(p).read() for p in ["README.md"] + sorted(glob.glob("Docs/**/*.md", recursive=True)))
corpus = norm(new)
def kept(unit, n=5):
    """The share of the unit's n-word runs that occur in the new text."""
    words = norm(unit).split()
    if len(words) <= n:
        return 0.0
    runs = [" ".join(words[i:i + n]) for i in range(len(words) - n + 1)]
    return sum(r in corpus for r in runs) / len(runs)

missing = [u for u in units(old) if norm(u) not in corpus]
total = len(units(old))
for u in missing:
    share = kept(u)
    label = "edited" if share >= 0.5 else "not found"
    first = u.strip().split("\n")[0]
    print(f"--- {label} ({share:.0%} of its 5-word runs kept): {first[:110]}")
print(f"{total - len(missing)} of {total} paragraphs found verbatim; "
      f"{sum(kept(u) >= 0.5 for u in missing)} edited, {sum(kept(u) < 0.5 for u in missing)} not found")
