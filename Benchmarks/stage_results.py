"""Shared by the benchmarks that time their stages with stage.sh: reading a stage's figures,
comparing reports apart from what differs between runs, and fitting memory against users."""


def timed(work, stage):
    """A stage's wall and CPU seconds and peak RSS (stage.sh's $WORK/time-STAGE.txt)."""
    wall, user, system, kb = open(f"{work}/time-{stage}.txt").read().split()[-4:]
    return {"wall_seconds": float(wall), "cpu_seconds": round(float(user) + float(system), 2), "peak_rss_kb": int(kb)}


def strip(d):
    """A report's JSON without the run id and timings (what differs between two runs of one job)."""
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items() if k not in ("run_id", "timings")}
    if isinstance(d, list):
        return [strip(x) for x in d]
    return d


def memory_fit(users, peaks_kb, what):
    """Peak RSS as a line in the users, least squares: kB a user and the intercept in MB."""
    n = len(users)
    mx, my = sum(users) / n, sum(peaks_kb) / n
    sxx = sum((x - mx) ** 2 for x in users)
    slope = sum((x - mx) * (y - my) for x, y in zip(users, peaks_kb)) / sxx if sxx else 0.0
    return {"kb_per_user": round(slope, 2), "intercept_mb": round((my - slope * mx) / 1024, 1),
            "note": f"peak RSS of {what} against the users, least squares over the runs above"}


def interval_key(k):
    """Whether a report's key holds a bootstrap interval (which the Poisson bootstrap redrew)."""
    return k.endswith("interval") or k.endswith("_ci")


def same_but_intervals(a, b, rel=1e-9):
    """Compares two reports' JSON (after `strip`) apart from their intervals: numbers equal, or
    within `rel` (the builds before issue 47's item 4 summed fetches per day in the users' order,
    in doubles; now exactly, so the last digits of points read from them may differ). Returns
    (the first difference beyond that or None, how many numbers differ in their last digits)."""
    close = 0

    def walk(x, y, path):
        nonlocal close
        if isinstance(x, dict) and isinstance(y, dict):
            for k in sorted(set(x) | set(y)):
                if interval_key(k):
                    continue
                problem = walk(x.get(k), y.get(k), f"{path}.{k}")
                if problem:
                    return problem
        elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
            for i, (u, v) in enumerate(zip(x, y)):
                problem = walk(u, v, f"{path}[{i}]")
                if problem:
                    return problem
        elif x != y:
            if isinstance(x, float) and isinstance(y, float) and abs(x - y) <= rel * max(abs(x), abs(y)) + 1e-15:
                close += 1
                return None
            return f"{path}: {x!r} against {y!r}"
        return None

    return walk(a, b, ""), close
