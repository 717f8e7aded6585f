"""An independent implementation of DOMAIN.md's evaluation protocol, in plain Python.

It reads the launches straight from a FetchLab database with SQL and computes, for the
clairvoyant and fixed-interval policies, the numbers `fetchlab compare` prints: fresh@τ
(launch-weighted over the evaluated (user, app) pairs), fetches per app per day (averaged over
pairs), the clairvoyant frontier and gap closed. It shares no code with FetchLab: it is the check
that FetchLab's figures follow the protocol.

Protocol (DOMAIN.md, "Evaluation protocol"): times on the user's wall clock; t0 = the user's first
usage event, E = the last; S = the first local midnight at least `warm_up_days` after t0; scored
launches S <= L <= E; evaluated pairs: apps with >= `min_launches` launches in the whole log;
fixed(T) fetches at t0 + n*T, fetches before S refresh but only those in [S, E] count; with launch
refreshes on, a launch refreshes its app at its time.
"""
import bisect
import sqlite3

US = 1_000_000
MINUTE = 60 * US
DAY = 86_400 * US
FIXED = [("fixed(15m)", 15), ("fixed(30m)", 30), ("fixed(1h)", 60), ("fixed(2h)", 120),
         ("fixed(4h)", 240), ("fixed(8h)", 480), ("fixed(24h)", 1440)]
BUDGETS = [1, 2, 4, 8, 16]


def load(db_path):
    """{user: {"t0", "E", "offset", "apps": {app: [launch times]}}} from the usage_event table."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    users = {}
    for user, t0, e in con.execute("SELECT user_id, MIN(time), MAX(time) FROM usage_event GROUP BY user_id"):
        users[user] = {"t0": t0, "E": e, "apps": {}, "offset": 0}
    for user, off in con.execute(
            "SELECT user_id, COALESCE(utc_offset, 0) FROM usage_event e WHERE kind = 0 AND time = "
            "(SELECT MIN(time) FROM usage_event f WHERE f.user_id = e.user_id AND f.kind = 0) GROUP BY user_id"):
        users[user]["offset"] = off
    for user, app, t in con.execute("SELECT user_id, app_id, time FROM usage_event WHERE kind = 0 ORDER BY time"):
        users[user]["apps"].setdefault(app, []).append(t)
    con.close()
    return users


def scored_start(u, warm_up_days):
    """S: the first local midnight at least warm_up_days after t0, as UTC microseconds."""
    off = u["offset"] * US
    earliest_local = u["t0"] + off + warm_up_days * DAY
    midnight_local = -(-earliest_local // DAY) * DAY  # ceiling to a local midnight
    return midnight_local - off


def freshness(launches, fetches, lo, hi, tau, launch_refreshes):
    """Number of launches in [lo, hi] whose last refresh is at most tau before them, and how many
    were scored. `fetches` is sorted."""
    fresh = scored = 0
    prev = None
    for L in launches:
        if lo <= L <= hi:
            scored += 1
            last = None
            i = bisect.bisect_right(fetches, L)
            if i > 0:
                last = fetches[i - 1]
            if launch_refreshes and prev is not None and (last is None or prev > last):
                last = prev
            if last is not None and L - last <= tau:
                fresh += 1
        prev = L
    return fresh, scored


def needs_fetch(launches, lo, hi, tau, launch_refreshes):
    """Scored launches not already fresh through the launch refresh of the previous launch."""
    out = []
    prev = None
    for L in launches:
        if lo <= L <= hi and not (launch_refreshes and prev is not None and L - prev <= tau):
            out.append(L)
        prev = L
    return out


def evaluate(db_path, tau_minutes=(5, 15, 60), launch_refreshes=True, warm_up_days=7, min_launches=20):
    """{policy: {"fresh": {tau: fraction}, "fpd": fetches per app per day, "scored": n}}."""
    users = load(db_path)
    names = ["never"] + [n for n, _ in FIXED] + ["oracle"] + [f"budget-oracle({k})" for k in BUDGETS]
    totals = {p: {"fresh": {t: 0 for t in tau_minutes}, "scored": 0, "fpd": []} for p in names}
    for u in users.values():
        S, E = scored_start(u, warm_up_days), u["E"]
        if S > E:
            continue
        days = (E - S) / DAY
        if days <= 0:
            continue
        for app, launches in u["apps"].items():
            if len(launches) < min_launches:
                continue
            primary_tau = (15 if 15 in tau_minutes else tau_minutes[0]) * MINUTE
            for name in names:
                # One set of fetches per policy (the clairvoyant ones aim at the primary tau, 15 min);
                # fresh@tau is measured on that set for every tau.
                if name == "never":
                    fetches = []
                elif name.startswith("fixed("):
                    period = dict(FIXED)[name] * MINUTE
                    n = (E - u["t0"]) // period
                    fetches = [u["t0"] + i * period for i in range(n + 1)]
                elif name == "oracle":
                    fetches = oracle_fetches(launches, S, E, primary_tau, launch_refreshes)
                else:
                    k = int(name[len("budget-oracle("):-1])
                    fetches = budget_oracle_fetches(launches, S, E, primary_tau, launch_refreshes, k, u["offset"])
                scored = 0
                for t in tau_minutes:
                    fresh, scored = freshness(launches, fetches, S, E, t * MINUTE, launch_refreshes)
                    totals[name]["fresh"][t] += fresh
                totals[name]["scored"] += scored
                totals[name]["fpd"].append(sum(1 for f in fetches if S <= f <= E) / days)
    out = {}
    for name, v in totals.items():
        out[name] = {"fresh": {t: (v["fresh"][t] / v["scored"] if v["scored"] else 0.0) for t in tau_minutes},
                     "fpd": sum(v["fpd"]) / len(v["fpd"]) if v["fpd"] else 0.0, "scored": v["scored"]}
    return out


def oracle_fetches(launches, S, E, tau, launch_refreshes):
    """oracle: a fetch at every scored launch that is not already fresh (through a launch refresh
    or an earlier oracle fetch within tau): the fewest fetches that make every launch fresh."""
    fetches = []
    for L in needs_fetch(launches, S, E, tau, launch_refreshes):
        if not fetches or L - fetches[-1] > tau:
            fetches.append(L)
    return fetches


def budget_oracle_fetches(launches, S, E, tau, launch_refreshes, k, offset):
    """budget-oracle(k): day by day (local days), at most k fetches at launch times covering the
    most launches of that day that are not already fresh (through a launch refresh or a fetch of an
    earlier day); among equally good choices, the earliest launches."""
    by_day = {}  # local day -> [(launch, the launch before it)], in time order
    prev = None
    for L in launches:
        if S <= L <= E:
            by_day.setdefault((L + offset * US) // DAY, []).append((L, prev))
        prev = L
    fetches = []
    for day_launches in by_day.values():
        stale = []
        for L, before in day_launches:
            by_launch = launch_refreshes and before is not None and L - before <= tau
            by_fetch = bool(fetches) and L - fetches[-1] <= tau
            if not (by_launch or by_fetch):
                stale.append(L)
        fetches += chosen_cover(stale, k, tau)
    return fetches


def chosen_cover(points, k, tau):
    """The interval starts of an optimal max-coverage with at most k intervals (backtracked)."""
    n = len(points)
    if n == 0 or k == 0:
        return []
    k = min(k, n)
    nxt = [bisect.bisect_right(points, p + tau) for p in points]
    rows = [[0] * (n + 1)]
    for _ in range(k):
        prev = rows[-1]
        row = [0] * (n + 1)
        for i in range(n - 1, -1, -1):
            row[i] = max(row[i + 1], nxt[i] - i + prev[nxt[i]])
        rows.append(row)
    starts, i, j = [], 0, k
    while j > 0 and i < n:
        take = nxt[i] - i + rows[j - 1][nxt[i]]
        if rows[j][i] == take:  # starting an interval at points[i] is optimal
            starts.append(points[i])
            i, j = nxt[i], j - 1
        else:
            i += 1
    return starts


def frontier(results, tau=15):
    pts = [(results["never"]["fpd"], results["never"]["fresh"][tau])]
    pts += [(results[f"budget-oracle({k})"]["fpd"], results[f"budget-oracle({k})"]["fresh"][tau]) for k in BUDGETS]
    pts.append((results["oracle"]["fpd"], results["oracle"]["fresh"][tau]))
    pts.sort()
    mono, best = [], 0.0
    for x, y in pts:
        best = max(best, y)
        mono.append((x, best))

    def at(x):
        if x <= mono[0][0]:
            return mono[0][1]
        for (x0, y0), (x1, y1) in zip(mono, mono[1:]):
            if x <= x1:
                return y0 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)
        return mono[-1][1]
    return at


def gap_closed(results, name, tau=15):
    at = frontier(results, tau)
    p = results[name]
    candidates = [("never", results["never"])] + [(n, results[n]) for n, _ in FIXED if results[n]["fpd"] <= p["fpd"]]
    base = max(candidates, key=lambda c: c[1]["fresh"][tau])[1]
    denominator = at(p["fpd"]) - base["fresh"][tau]
    if denominator <= 0:
        return None
    return (p["fresh"][tau] - base["fresh"][tau]) / denominator
