#!/usr/bin/env python3
"""Writes a usage-event CSV whose every row names a user and an app never seen before (for the
many-names benchmark), deterministically, to stdout.

usage: make_many_names_log.py ROWS [--seed S]

Names are 16 pseudo-random hex digits after a prefix (`u-…`, `com.x…`), so they reach the
database's name indexes in random order, as real device ids would.
"""
import argparse
import random
import sys
import time

from buffered import write_lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("rows", type=int)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    sys.stdout.write("timestamp,user,app,event\n")
    t = 1_704_067_200  # 2024-01-01T00:00:00Z

    def lines():
        nonlocal t
        for i in range(args.rows):
            t += rng.randint(0, 2)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
            # i in the name keeps names distinct; the random part scatters them.
            yield f"{stamp},u-{rng.getrandbits(40):010x}{i:08x},com.x{rng.getrandbits(40):010x}{i:08x},launch\n"

    write_lines(lines())

if __name__ == "__main__":
    main()
