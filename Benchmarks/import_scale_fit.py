"""Summarises Benchmarks/import-scale-benchmark.sh's measurements: per size, each tool's seconds,
microseconds per row and fetchlab's speed as a ratio of the keyed sqlite3 peer's (and of the
baseline build's); per tool, the exponent of its seconds in the users (least squares on the logs).

    python3 Benchmarks/import_scale_fit.py ROWS DAYS COMMIT [BASELINE_BIN BASELINE_COMMIT]

ROWS holds one line per measurement: USERS TOOL RUN WALL USER SYS PEAK_KB ROWS_STORED.
Writes Benchmarks/results/import-scale-DAYSd.json (or $RESULTS.json) and prints a summary."""
import datetime, json, math, os, platform, statistics, sys


def fit(points):
    """Least-squares slope of log(seconds) on log(users): 1 is a flat cost per row."""
    xs = [math.log(u) for u, _ in points]
    ys = [math.log(max(s, 1e-3)) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den, 3) if den > 0 else None


def main(path, days, commit, base_bin="", base_commit=""):
    runs = {}
    for line in open(path):
        users, tool, _, wall, user, sys_s, peak, rows = line.split()
        runs.setdefault(tool, {}).setdefault(int(users), []).append(
            {"wall": float(wall), "cpu": float(user) + float(sys_s), "user": float(user), "sys": float(sys_s),
             "peak_kb": int(peak), "rows": int(rows)})
    tools = [t for t in ("fetchlab", "keyed", "baseline") if t in runs]
    sizes = sorted(set.intersection(*(set(runs[t]) for t in tools)))
    per_size = []
    for u in sizes:
        entry = {"users": u, "usage_rows": runs["keyed"][u][0]["rows"]}
        for t in tools:
            rs = runs[t][u]
            entry[t] = {"median_wall_seconds": statistics.median(r["wall"] for r in rs),
                        "median_cpu_seconds": round(statistics.median(r["cpu"] for r in rs), 2),
                        "runs_wall_seconds": [r["wall"] for r in rs],
                        "runs_user_seconds": [r["user"] for r in rs],
                        "runs_sys_seconds": [r["sys"] for r in rs],
                        "peak_rss_kb": max(r["peak_kb"] for r in rs), "rows_stored": rs[0]["rows"]}
            entry[t]["microseconds_per_row"] = round(entry[t]["median_wall_seconds"] / entry["usage_rows"] * 1e6, 3)
        for t in ("fetchlab", "baseline"):
            if t in entry:
                entry[f"{t}_speed_over_keyed"] = round(
                    entry["keyed"]["median_wall_seconds"] / entry[t]["median_wall_seconds"], 3)
                entry[f"{t}_cpu_speed_over_keyed"] = round(
                    entry["keyed"]["median_cpu_seconds"] / entry[t]["median_cpu_seconds"], 3)
        if "baseline" in entry:
            entry["fetchlab_speed_over_baseline"] = round(
                entry["baseline"]["median_wall_seconds"] / entry["fetchlab"]["median_wall_seconds"], 3)
        per_size.append(entry)

    exponents = {}
    for t in tools:
        for kind in ("wall", "cpu"):
            exponents[f"{t}_{kind}"] = fit([(s["users"], s[t][f"median_{kind}_seconds"]) for s in per_size])

    print(f"{'users':>8} {'rows':>12} " + " ".join(f"{t + ' s':>12}" for t in tools)
          + f" {'fl µs/row':>9} {'fl÷keyed':>9}" + (f" {'base÷keyed':>10} {'fl÷base':>8}" if "baseline" in tools else ""))
    for s in per_size:
        line = f"{s['users']:>8,} {s['usage_rows']:>12,} " + " ".join(
            f"{s[t]['median_wall_seconds']:>12.1f}" for t in tools)
        line += f" {s['fetchlab']['microseconds_per_row']:>9.2f} {s['fetchlab_speed_over_keyed']:>8.2f}×"
        if "baseline" in tools:
            line += f" {s['baseline_speed_over_keyed']:>9.2f}× {s['fetchlab_speed_over_baseline']:>7.2f}×"
        print(line)
    print("exponent of wall seconds in users (1 = flat per row): "
          + ", ".join(f"{t} {exponents[t + '_wall']}" for t in tools)
          + "; of CPU seconds: " + ", ".join(f"{t} {exponents[t + '_cpu']}" for t in tools))
    print("targets: fetchlab's exponent ≤ 1.05, ≥ 2× the keyed peer at every size")

    result = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit, "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average": round(os.getloadavg()[0], 2),
        "days": days, "seed": 1, "input": "usage.csv.gz of `fetchlab generate --users N --days DAYS --seed 1`",
        "keyed_peer": "gzip -dc usage.csv.gz | sqlite3 DB '.import --csv --skip 1 /dev/stdin usage' into "
                      "usage(timestamp, user, app, event, PRIMARY KEY (user, app, timestamp, event)) WITHOUT ROWID",
        "baseline": {"bin": base_bin, "commit": base_commit} if base_bin else None,
        "sizes": per_size,
        "exponent_in_users": exponents,
    }
    out = f"Benchmarks/results/{os.environ.get('RESULTS') or f'import-scale-{days}d'}.json"
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], int(a[1]), a[2], *(a[3:5]))
