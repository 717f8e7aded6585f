#!/usr/bin/env python3
"""Writes an Android foreground-app polling log (`YYYY-MM-DD HH:MM:SS.ffffff,package` lines) to
stdout, deterministically (for the dense-foreground benchmark).

usage: make_foreground_log.py LINES (--sparse | --dense) [--seed S]

  --sparse  one sample every 5-60 s, in order (a phone polled every few seconds, idle gaps)
  --dense   about four samples a second; one line in 100 is written up to 30 s late (out of
            order), as loggers with several writer threads do
Apps switch now and then among 40 packages, a launcher among them.
"""
import argparse
import random
import time

from buffered import write_lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lines", type=int)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sparse", action="store_true")
    mode.add_argument("--dense", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    apps = ["com.android.launcher3"] + [f"com.example.app{i:02d}" for i in range(39)]
    t = 1_704_067_200 * 1_000_000  # 2024-01-01T00:00:00Z in microseconds
    app = apps[1]

    def stamp(us: int) -> str:
        s, frac = divmod(us, 1_000_000)
        return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(s)) + f".{frac:06d}"

    def lines():
        nonlocal t, app
        for _ in range(args.lines):
            if args.dense:
                t += rng.randint(150_000, 350_000)
            else:
                t += rng.randint(5, 60) * 1_000_000
            if rng.random() < 0.02:
                app = rng.choice(apps)
            when = t
            if args.dense and rng.random() < 0.01:
                when = t - rng.randint(1, 30_000_000)  # up to 30 s late
            yield f"{stamp(when)},{app}\n"

    write_lines(lines())

if __name__ == "__main__":
    main()
