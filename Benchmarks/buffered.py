"""Shared by the make_*_log.py benchmark generators: writing many lines to stdout in chunks."""
import sys
from typing import Iterable


def write_lines(lines: Iterable[str], chunk: int = 20000) -> None:
    """Writes `lines` (each ending in a newline) to stdout, joined `chunk` at a time."""
    out = sys.stdout
    buf = []
    for line in lines:
        buf.append(line)
        if len(buf) >= chunk:
            out.write("".join(buf))
            buf.clear()
    out.write("".join(buf))
