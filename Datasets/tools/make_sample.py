#!/usr/bin/env python3
"""Writes Datasets/sample: a small, seeded synthetic population in FetchLab's own formats.

    python3 Datasets/tools/make_sample.py [--out Datasets/sample] [--users 12] [--days 21] [--seed 7]

Same arguments, byte-identical files (gzip with mtime 0). Each user has a few apps with a
habitual time of day (with spread), weekday-only habits, and irregular apps; a device
context log with overnight charging and Wi-Fi at home; and content updates per app.
`habits.json` records the truth the logs were drawn from.
"""
import argparse
import datetime as dt
import gzip
import io
import json
import os
import random

APPS = {
    "com.example.news": {"content_every_min": 30},
    "com.example.weather": {"content_every_min": 60},
    "com.example.podcast": {"content_every_min": 24 * 60},
    "com.example.social": {"content_every_min": 5},
    "com.example.mail": {"content_every_min": 15},
    "com.example.bank": {"content_every_min": 12 * 60},
}
ZONES = [("UTC+01:00", 60), ("UTC-05:00", -300), ("UTC+05:30", 330), ("UTC", 0)]


def write_gz(path, text):
    raw = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
        gz.write(text.encode())
    with open(path, "wb") as f:
        f.write(raw.getvalue())


def iso(t_utc, offset_min):
    local = t_utc + dt.timedelta(minutes=offset_min)
    sign = "+" if offset_min >= 0 else "-"
    h, m = divmod(abs(offset_min), 60)
    return local.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{h:02d}:{m:02d}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="Datasets/sample")
    ap.add_argument("--users", type=int, default=12)
    ap.add_argument("--days", type=int, default=21)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--start", default="2024-04-01")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    start = dt.datetime.fromisoformat(a.start).replace(tzinfo=dt.timezone.utc)
    os.makedirs(a.out, exist_ok=True)
    usage, context, truth = ["timestamp,user,app,event"], ["timestamp,user,battery,charging,network,low_power"], []
    for u in range(a.users):
        user = f"u{u + 1:02d}"
        zone, offset = ZONES[u % len(ZONES)]  # fixed offsets (no DST)
        apps = rng.sample(sorted(APPS), 4)
        habits = []
        for i, app in enumerate(apps):
            if i < 2:
                habits.append({"app": app, "kind": "daily", "minute_of_day": rng.randrange(6 * 60, 23 * 60),
                               "spread_min": rng.choice([5, 10, 20]), "weekdays_only": i == 1 and rng.random() < 0.5,
                               "probability": round(rng.uniform(0.75, 0.95), 2)})
            else:
                habits.append({"app": app, "kind": "irregular", "per_day": round(rng.uniform(0.5, 4), 1)})
        truth.append({"user": user, "time_zone": zone, "utc_offset_min": offset, "habits": habits})
        battery = 100.0
        for d in range(a.days):
            day = start + dt.timedelta(days=d)
            weekday = day.weekday() < 5
            events = []
            for h in habits:
                if h["kind"] == "daily":
                    if h["weekdays_only"] and not weekday:
                        continue
                    if rng.random() < h["probability"]:
                        minute = h["minute_of_day"] + rng.gauss(0, h["spread_min"])
                        events.append((day + dt.timedelta(minutes=minute - offset), h["app"]))
                else:
                    for _ in range(int(rng.expovariate(1 / h["per_day"]) + 0.5)):
                        events.append((day + dt.timedelta(minutes=rng.uniform(7 * 60, 23 * 60) - offset), h["app"]))
            for t, app in sorted(events):
                usage.append(f"{iso(t, offset)},{user},{app},launch")
                usage.append(f"{iso(t + dt.timedelta(minutes=rng.uniform(0.5, 8)), offset)},{user},{app},close")
            for half_hour in range(48):
                t = day + dt.timedelta(minutes=30 * half_hour - offset)
                local_hour = half_hour / 2
                charging = local_hour < 7 or local_hour >= 23
                home = local_hour < 8 or local_hour >= 19
                battery = min(100.0, battery + 12) if charging else max(3.0, battery - rng.uniform(1, 3.5))
                network = "wifi" if home or rng.random() < 0.3 else ("none" if rng.random() < 0.03 else "cellular")
                context.append(f"{iso(t, offset)},{user},{battery:.0f},{str(charging).lower()},{network},{str(battery < 20).lower()}")
    content = ["timestamp,app"]
    for app, spec in sorted(APPS.items()):
        t = start
        end = start + dt.timedelta(days=a.days)
        while t < end:
            content.append(f"{t.strftime('%Y-%m-%dT%H:%M:%SZ')},{app}")
            t += dt.timedelta(minutes=spec["content_every_min"] * rng.uniform(0.7, 1.3))
    write_gz(os.path.join(a.out, "usage.csv.gz"), "\n".join(usage) + "\n")
    write_gz(os.path.join(a.out, "context.csv.gz"), "\n".join(context) + "\n")
    write_gz(os.path.join(a.out, "content.csv.gz"), "\n".join(content) + "\n")
    with open(os.path.join(a.out, "habits.json"), "w") as f:
        json.dump({"generator": "Datasets/tools/make_sample.py", "seed": a.seed, "users": a.users, "days": a.days,
                   "start": a.start, "population": truth}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
