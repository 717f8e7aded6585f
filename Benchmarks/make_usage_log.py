#!/usr/bin/env python3
"""Writes a large FetchLab usage-event CSV to stdout, deterministically (for benchmarks).

usage: make_usage_log.py EVENTS [--users N] [--apps N] [--seed S]

Rows are in time order, like a real export: ISO-8601 UTC timestamps with milliseconds,
user names, reverse-DNS app names, and mostly `launch` events.
"""
import argparse
import random
import sys
import time

from buffered import write_lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("events", type=int)
    ap.add_argument("--users", type=int, default=2000)
    ap.add_argument("--apps", type=int, default=60)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    users = [f"user{i:05d}" for i in range(args.users)]
    apps = [f"com.example.app{i:03d}" for i in range(args.apps)]
    events = ["launch"] * 8 + ["close"] * 2
    sys.stdout.write("timestamp,user,app,event\n")
    t = 1_704_067_200_000  # 2024-01-01T00:00:00Z in ms

    def lines():
        nonlocal t
        for _ in range(args.events):
            t += rng.randint(1, 300)
            s, ms = divmod(t, 1000)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(s))
            yield f"{stamp}.{ms:03d}Z,{rng.choice(users)},{apps[int(rng.paretovariate(1.2)) % args.apps]},{rng.choice(events)}\n"

    write_lines(lines(), chunk=10000)

if __name__ == "__main__":
    main()
