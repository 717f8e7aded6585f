"""An independent implementation of DOMAIN.md's evaluation protocol, in plain Python.

It reads the launches straight from a FetchLab database with SQL and computes, for the
clairvoyant and fixed-interval policies, the numbers `fetchlab compare` prints: fresh@τ
(launch-weighted over the evaluated (user, app) pairs), fetches per app per day (averaged over
pairs), fetch counts, wasted fetches, staleness (median, p90) and lead (median) binned as FetchLab
reports them, content freshness (from the content_update table), the same per app, the clairvoyant
frontier and gap closed. It shares no code with FetchLab: it is the check that FetchLab's figures
follow the protocol and the metric definitions.

Protocol (DOMAIN.md, "Evaluation protocol"): times on the user's wall clock; t0 = the user's first
usage event, E = the last; S = the first local midnight at least `warm_up_days` after t0; scored
launches S <= L <= E; evaluated pairs: apps with >= `min_launches` launches in the whole log;
fixed(T) fetches at t0 + n*T, fetches before S refresh but only those in [S, E] count; with launch
refreshes on, a launch refreshes its app at its time.
"""
import bisect
import math
import sqlite3

US = 1_000_000
MINUTE = 60 * US
DAY = 86_400 * US
FIXED = [("fixed(15m)", 15), ("fixed(30m)", 30), ("fixed(1h)", 60), ("fixed(2h)", 120),
         ("fixed(4h)", 240), ("fixed(8h)", 480), ("fixed(24h)", 1440)]
BUDGETS = [1, 2, 4, 8, 16]


def load(db_path):
    """{user: {"t0", "E", "offset", "apps": {app id: [launch times]}, "app_names": {app id: name}}}
    from the usage_event table."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    names = dict(con.execute("SELECT id, name FROM app"))
    users = {}
    for user, t0, e in con.execute("SELECT user_id, MIN(time), MAX(time) FROM usage_event GROUP BY user_id"):
        users[user] = {"t0": t0, "E": e, "apps": {}, "offset": 0, "app_names": names}
    for user, off in con.execute(
            "SELECT user_id, COALESCE(utc_offset, 0) FROM usage_event e WHERE kind = 0 AND time = "
            "(SELECT MIN(time) FROM usage_event f WHERE f.user_id = e.user_id AND f.kind = 0) GROUP BY user_id"):
        users[user]["offset"] = off
    for user, app, t in con.execute("SELECT user_id, app_id, time FROM usage_event WHERE kind = 0 ORDER BY time"):
        users[user]["apps"].setdefault(app, []).append(t)
    con.close()
    return users


def load_content(db_path):
    """{app id: [content update times, ascending]} from the content_update table (updates are per app,
    the same for every user)."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out = {}
    for app, t in con.execute("SELECT app_id, time FROM content_update ORDER BY app_id, time"):
        out.setdefault(app, []).append(t)
    con.close()
    return out


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


def policy_fetches(name, u, launches, S, E, tau, launch_refreshes):
    """The fetch times (ascending) a planned policy makes for one (user, app) pair."""
    if name == "never":
        return []
    if name.startswith("fixed("):
        period = dict(FIXED)[name] * MINUTE
        n = (E - u["t0"]) // period
        return [u["t0"] + i * period for i in range(n + 1)]
    if name == "oracle":
        return oracle_fetches(launches, S, E, tau, launch_refreshes)
    k = int(name[len("budget-oracle("):-1])
    return budget_oracle_fetches(launches, S, E, tau, launch_refreshes, k, u["offset"])


def evaluate(db_path, tau_minutes=(5, 15, 60), launch_refreshes=True, warm_up_days=7, min_launches=20,
             with_outcomes=False):
    """{policy: metrics} for never, the fixed intervals, oracle and budget-oracle(k).

    Each policy's metrics (see `aggregate`): "fresh" {tau: fraction}, "fpd" (fetches per app per
    day), "scored", "fetches", "wasted", "content_fresh", "staleness_median_min",
    "staleness_p90_min", "lead_median_min", and "per_app" {app name: the same for that app's pairs}.
    With `with_outcomes`, also "pairs": [(user, app, pair outcome)]."""
    users = load(db_path)
    content = load_content(db_path)
    primary_tau = (15 if 15 in tau_minutes else tau_minutes[0]) * MINUTE
    taus = [t * MINUTE for t in tau_minutes]
    names = ["never"] + [n for n, _ in FIXED] + ["oracle"] + [f"budget-oracle({k})" for k in BUDGETS]
    outcomes = {name: [] for name in names}  # name -> [(user, app, outcome)]
    for user, u in users.items():
        S, E = scored_start(u, warm_up_days), u["E"]
        if S > E:
            continue
        days = (E - S) / DAY
        if days <= 0:
            continue
        for app, launches in u["apps"].items():
            if len(launches) < min_launches:
                continue
            updates = [c for c in content.get(app, []) if c <= E]
            for name in names:
                # One set of fetches per policy (the clairvoyant ones aim at the primary tau, 15 min);
                # fresh@tau is measured on that set for every tau.
                fetches = policy_fetches(name, u, launches, S, E, primary_tau, launch_refreshes)
                o = score_pair(launches, fetches, updates, S, E, taus, primary_tau, launch_refreshes)
                outcomes[name].append((user, u["app_names"][app], o))
    out = {}
    for name, rows in outcomes.items():
        out[name] = aggregate([o for _, _, o in rows], tau_minutes)
        by_app = {}
        for _, app_name, o in rows:
            by_app.setdefault(app_name, []).append(o)
        out[name]["per_app"] = {a: aggregate(os, tau_minutes) for a, os in sorted(by_app.items())}
        if with_outcomes:
            out[name]["pairs"] = rows
    return out


def score_pair(launches, fetches, updates, S, E, taus, primary_tau, launch_refreshes):
    """What a sorted list of fetch times achieves on one (user, app) pair, straight from the
    definitions (DOMAIN.md, "Vocabulary and metrics"):

    - the refresh a launch L sees is the latest of: the last fetch at or before L, and (launch
      refreshes on) the app's previous launch; staleness = L - that refresh (None: never refreshed);
      fresh@tau: staleness <= tau;
    - content freshness (when the app's content update times are known): no update at or before L
      that is newer than the last refresh;
    - a fetch in [S, E] is wasted when no launch comes at or after it and before the next fetch;
    - the lead of a fetch is the time from it to the first scored launch it made fresh at the
      primary tau (it is the last fetch before that launch, within tau) that the previous launch's
      refresh alone would not have made fresh; each fetch counts at most once.
    """
    scored = [L for L in launches if S <= L <= E]
    n_taus = len(taus)
    fresh = [0] * n_taus
    staleness = []
    content_scored = content_fresh = 0
    for i, L in enumerate(launches):
        if not S <= L <= E:
            continue
        i_fetch = bisect.bisect_right(fetches, L)
        refreshes = []
        if i_fetch > 0:
            refreshes.append(fetches[i_fetch - 1])
        if launch_refreshes and i > 0:
            refreshes.append(launches[i - 1])
        last = max(refreshes) if refreshes else None
        age = None if last is None else L - last
        staleness.append(age)
        for k, tau in enumerate(taus):
            if age is not None and age <= tau:
                fresh[k] += 1
        if updates:
            content_scored += 1
            j = bisect.bisect_right(updates, L)
            newest = updates[j - 1] if j > 0 else None
            if newest is None or (last is not None and last >= newest):
                content_fresh += 1
    # Wasted fetches and leads, fetch by fetch.
    fetch_count = wasted = 0
    leads = []
    for i, f in enumerate(fetches):
        nxt = fetches[i + 1] if i + 1 < len(fetches) else None
        lo = bisect.bisect_left(launches, f)
        hi = len(launches) if nxt is None else bisect.bisect_left(launches, nxt)
        # launches[lo:hi]: the launches that see f as their last fetch
        if S <= f <= E:
            fetch_count += 1
            if hi <= lo:
                wasted += 1
        for idx in range(lo, hi):
            L = launches[idx]
            if L - f > primary_tau:
                break
            if not S <= L <= E:
                continue
            by_previous = launch_refreshes and idx > 0 and L - launches[idx - 1] <= primary_tau
            if not by_previous:
                leads.append(L - f)
                break
    days = (E - S) / DAY
    return {"scored": len(scored), "fresh": fresh, "staleness": staleness, "leads": leads,
            "fetches": fetch_count, "wasted": wasted, "days": days, "fpd": fetch_count / days if days > 0 else 0.0,
            "content_scored": content_scored, "content_fresh": content_fresh}


def aggregate(outcomes, tau_minutes):
    """A group's metrics from its pairs' outcomes: fresh rates launch-weighted, fetches per app per
    day averaged over pairs, quantiles over all the group's launches (or useful fetches)."""
    scored = sum(o["scored"] for o in outcomes)
    fresh = {t: (sum(o["fresh"][k] for o in outcomes) / scored if scored else 0.0) for k, t in enumerate(tau_minutes)}
    content_scored = sum(o["content_scored"] for o in outcomes)
    fetches = sum(o["fetches"] for o in outcomes)
    wasted = sum(o["wasted"] for o in outcomes)
    staleness = [s for o in outcomes for s in o["staleness"]]
    leads = [x for o in outcomes for x in o["leads"]]
    return {
        "fresh": fresh, "scored": scored, "pairs": len(outcomes),
        "fpd": sum(o["fpd"] for o in outcomes) / len(outcomes) if outcomes else 0.0,
        "fetches": fetches, "wasted": wasted, "wasted_share": wasted / fetches if fetches else 0.0,
        "content_fresh": (sum(o["content_fresh"] for o in outcomes) / content_scored) if content_scored else None,
        "staleness_median_min": binned_quantile(staleness, 0.5),
        "staleness_p90_min": binned_quantile(staleness, 0.9),
        "lead_median_min": binned_quantile(leads, 0.5),
    }


def bin_floor_minutes(us):
    """The lower edge, in minutes, of the reporting bin of a duration in microseconds: whole seconds
    below 1 min, 10 s steps below 1 h, 1 min steps below 1 day, 15 min steps below 14 days; None for
    longer durations and for None ("never refreshed")."""
    if us is None:
        return None
    s = max(0, us) // US
    if s < 60:
        edge = s
    elif s < 3_600:
        edge = s - (s - 60) % 10
    elif s < 86_400:
        edge = s - (s - 3_600) % 60
    elif s < 14 * 86_400:
        edge = s - (s - 86_400) % 900
    else:
        return None
    return edge / 60


def binned_quantile(values, q):
    """Nearest-rank q quantile (the ceil(q·n)-th smallest; None counts as longer than anything),
    reported as its bin's lower edge in minutes; None when there are no values or it falls in the
    open-ended bin."""
    if not values:
        return None
    rank = max(1, math.ceil(q * len(values)))
    ordered = sorted(values, key=lambda v: (v is None, v if v is not None else 0))
    return bin_floor_minutes(ordered[rank - 1])


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
