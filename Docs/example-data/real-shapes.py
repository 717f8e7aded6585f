#!/usr/bin/env python3
"""Small files in the shapes of real phone logs, for the examples in Docs (Docs/examples.py runs
this in each page's scratch directory: `python3 example-data/real-shapes.py`).

The logs FetchLab was developed on are not in the repository; these files have their shapes, with
made-up contents (the same every run):

    foreground-user_x.csv   an Android foreground-app log: no header, local date-times without a
                            zone, one line per poll of the foreground app; launchers, system UI,
                            `android`, the logger, the in-call screen and the Google search bar
                            among the apps; two placeholder lines at 1970-01-01, repeated lines
                            and a few lines out of order
    battery-<hex>.csv       an Android battery-sampler log of a device: its id is a hex string
                            (no user's name), `Timestamp` in epoch milliseconds, in 2020, years
                            before the launches (the samples overlap no launch)
    updates.csv             a two-column `timestamp,app` CSV
    export.csv              a tracker app's export: date and time in separate columns, day-first
                            dates, a 12-hour clock and a duration in seconds

    python3 Docs/example-data/real-shapes.py [DIR]     (writes into DIR, by default the current one)
"""

import random
import sys
from datetime import datetime, timedelta
from pathlib import Path

DEVICE = "5e1d0c3a9b7f4e2d8c6a4b2e0f9d7c5a"

APPS = [
    ("com.whatsapp", 9),
    ("com.android.chrome", 5),
    ("com.google.android.gm", 3),
    ("com.google.android.googlequicksearchbox", 3),
    ("com.sec.android.app.camera", 2),
    ("com.samsung.android.incallui", 2),
    ("com.samsung.android.dialer", 2),
    ("com.spotify.music", 2),
    ("com.android.settings", 1),
]
LAUNCHER = "com.sec.android.app.launcher"
SYSTEM = ["com.android.systemui", "android", "com.example.nextapp"]


def foreground(rng: random.Random) -> list[str]:
    lines: list[str] = []
    t = datetime(2023, 12, 17, 20, 25, 43, 749000)
    end = datetime(2024, 1, 14)
    names = [a for a, w in APPS for _ in range(w)]
    while t < end:
        # A use: the launcher, maybe the system UI or the logger, then an app polled a few times.
        lines.append(f"{t:%Y-%m-%d %H:%M:%S.%f},{LAUNCHER}")
        t += timedelta(seconds=rng.randint(3, 20), microseconds=rng.randint(0, 999) * 1000)
        if rng.random() < 0.25:
            lines.append(f"{t:%Y-%m-%d %H:%M:%S.%f},{rng.choice(SYSTEM)}")
            t += timedelta(seconds=rng.randint(2, 10))
        app = rng.choice(names)
        for _ in range(rng.randint(1, 3)):
            lines.append(f"{t:%Y-%m-%d %H:%M:%S.%f},{app}")
            t += timedelta(seconds=rng.randint(10, 90), microseconds=rng.randint(0, 999) * 1000)
        if rng.random() < 0.05:
            lines.append(lines[-1])  # a poll written twice
        t += timedelta(minutes=rng.choice([2, 8, 25, 60, 90, 180, 420]))
    # A few lines out of order, by seconds (polls of one use written in the wrong order).
    for k in range(40, len(lines) - 1, 97):
        a, b = (datetime.strptime(x.split(",")[0], "%Y-%m-%d %H:%M:%S.%f") for x in lines[k : k + 2])
        if b - a < timedelta(minutes=2):
            lines[k], lines[k + 1] = lines[k + 1], lines[k]
    # A clock not yet set: placeholders at epoch 0 (1970-01-01 01:00 in the phone's zone).
    lines.insert(60, "1970-01-01 01:00:00.000000,com.android.location.fused")
    lines.insert(200, "1970-01-01 01:00:00.000000,com.samsung.android.incallui")
    return lines


def battery(rng: random.Random) -> list[str]:
    header = (
        "_id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,"
        "Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp"
    )
    lines = [header]
    t = 1596974946939  # 2020-08-09
    level = 83
    for i in range(240):
        charging = (i // 60) % 2 == 1
        level = min(100, level + 1) if charging else max(5, level - (1 if i % 3 == 0 else 0))
        wifi = "true" if (i // 30) % 3 != 2 else "false"
        cellular = "false" if wifi == "true" else "true"
        interactive = "true" if (i // 7) % 3 != 0 else "false"
        lines.append(
            f"{0x5f3048e174fece01fe8bdb6d + i:x},{DEVICE},{level},29.{i % 10},4.1{i % 9},Li-ion,"
            f"{2 if charging else 3},2,{rng.randint(20, 100)},{wifi},{cellular},false,false,false,"
            f"{rng.randint(18, 30)}.{rng.randint(0, 99):02d},78,{interactive},10,samsung-SM-A415F,10,{level},{t}"
        )
        t += 600_000
    return lines


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(".")
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2026)
    (out / "foreground-user_x.csv").write_text("\n".join(foreground(rng)) + "\n")
    (out / f"battery-{DEVICE}.csv").write_text("\n".join(battery(rng)) + "\n")
    (out / "updates.csv").write_text(
        "timestamp,app\n2024-01-02T08:00:00Z,com.whatsapp\n2024-01-02T09:30:00Z,com.google.android.gm\n"
        "2024-01-03T07:45:00Z,com.spotify.music\n"
    )
    (out / "export.csv").write_text("Date,Time,Person,App,Seconds\n13/04/2024,9:05 PM,ana,com.example.news,83\n14/04/2024,7:30 AM,ana,com.example.mail,12\n")


if __name__ == "__main__":
    main()
