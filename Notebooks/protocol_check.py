"""An independent implementation of DOMAIN.md's evaluation protocol, in plain Python.

It reads the launches straight from a FetchLab database with SQL and computes, for the
clairvoyant and fixed-interval policies, the numbers `fetchlab compare` prints: fresh@τ
(launch-weighted over the evaluated (user, app) pairs), fetches per app per day (averaged over
pairs), fetch counts, wasted fetches, staleness (median, p90) and lead (median) binned as FetchLab
reports them, content freshness (from the content_update table), the same per app, the clairvoyant
and, at a budget B of fetches per app per day, the clairvoyant bound and the
fixed-interval baseline (`clairvoyant_bound`, `fixed_baseline`). It shares no code with FetchLab: it is
the check that FetchLab's figures follow the protocol and the metric definitions.

    python3 protocol_check.py bound DB [--launch-refreshes on|off] [--tau 15] [--budgets 0.5,1,2,5,10]
    python3 protocol_check.py selftest [DB]

Protocol (DOMAIN.md, "Evaluation protocol"): times on the user's wall clock; t0 = the user's first
usage event, E = the last; S = the first local midnight at least `warm_up_days` after t0; scored
launches S <= L <= E; evaluated pairs: apps with >= `min_launches` launches in the whole log;
fixed(T) fetches at t0 + n*T, fetches before S refresh but only those in [S, E] count; with launch
refreshes on, a launch refreshes its app at its time.
"""
import bisect
import math
import sqlite3

import numpy as np

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
    # the UTC offset of each user's first launch (a join on the first launch time: a correlated
    # subquery per launch took seconds on the sample)
    for user, off in con.execute(
            "SELECT e.user_id, COALESCE(e.utc_offset, 0) FROM usage_event e JOIN "
            "(SELECT user_id, MIN(time) AS first FROM usage_event WHERE kind = 0 GROUP BY user_id) f "
            "ON e.user_id = f.user_id AND e.time = f.first WHERE e.kind = 0 GROUP BY e.user_id"):
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


# ---------------------------------------------------------------------------------------------------
# Freshness at a budget: the clairvoyant bound and the fixed-interval baseline (DOMAIN.md,
# "Evaluation protocol"). B is in fetches per app per day, averaged over the evaluated pairs.

STANDARD_BUDGETS = [0.5, 1, 2, 5, 10]


def fixed_grid_minutes():
    """The dense grid of fixed(T) intervals of the baseline, in minutes: every minute from 5 min to
    24 h, then every 15 min to 7 days (2,012 intervals)."""
    return list(range(5, 1441)) + list(range(1455, 7 * 1440 + 1, 15))


def evaluated_pairs(users, tau_min=15, warm_up_days=7, min_launches=20, launch_refreshes=True):
    """The evaluated (user, app) pairs, each a dict: user, app, t0, S, E, days (D_p = (E - S) in
    days), scored (launches in [S, E]) and targets (the scored launches that only a background fetch
    can make fresh, ascending). Users whose scored span is empty have no pairs, as in `evaluate`."""
    tau = tau_min * MINUTE
    pairs = []
    for user, u in users.items():
        S, E = scored_start(u, warm_up_days), u["E"]
        if S > E or E - S <= 0:
            continue
        for app, launches in u["apps"].items():
            if len(launches) < min_launches:
                continue
            pairs.append({"user": user, "app": app, "t0": u["t0"], "S": S, "E": E, "days": (E - S) / DAY,
                          "scored": sum(1 for L in launches if S <= L <= E),
                          "targets": needs_fetch(launches, S, E, tau, launch_refreshes)})
    return pairs


def max_cover_counts(targets, tau):
    """[c(0), c(1), ..., c(K)]: c(k) = the most of the (ascending) target times that k fetches can
    make fresh, a fetch at f covering the targets in [f, f + tau]; K is the first k with c(k) = all.

    Exact, by dynamic programming over k (not a Lagrangian): with nxt[i] the first target later than
    t_i + tau, f_k(i) = the most of targets i.. that k fetches cover
                      = max(f_k(i + 1), (nxt[i] - i) + f_(k-1)(nxt[i])),  f_k(n) = f_0(.) = 0
    (an optimal fetch may start at its first covered target), i.e. f_k = the reversed running
    maximum of cnt + f_(k-1)[nxt]; c(k) = f_k(0). O(n) per k."""
    t = np.asarray(targets, dtype=np.int64)
    n = len(t)
    counts = [0]
    if n == 0:
        return counts
    nxt = np.searchsorted(t, t + tau, side="right")
    cnt = nxt - np.arange(n)
    f = np.zeros(n + 1, dtype=np.int64)
    while counts[-1] < n:
        g = cnt + f[nxt]
        f = np.zeros(n + 1, dtype=np.int64)
        f[:n] = np.maximum.accumulate(g[::-1])[::-1]
        assert f[0] > counts[-1]  # one more fetch at an uncovered target always covers one more
        counts.append(int(f[0]))
    return counts


def concave_hull(values):
    """The vertices (k, value) of the upper concave hull of the points (k, values[k]), k = 0, 1, ..."""
    hull = []
    for k, v in enumerate(values):
        # drop the last vertex while it is not strictly above the chord from the one before it to (k, v)
        while len(hull) >= 2 and (hull[-1][1] - hull[-2][1]) * (k - hull[-2][0]) <= (v - hull[-2][1]) * (hull[-1][0] - hull[-2][0]):
            hull.pop()
        hull.append((k, v))
    return hull


def _as_list(budget):
    return (list(budget), False) if isinstance(budget, (list, tuple, np.ndarray)) else ([budget], True)


def bound_from_pairs(pairs, budgets, tau_min=15):
    """The clairvoyant bound (a fraction) at each budget, from `evaluated_pairs`."""
    tau = tau_min * MINUTE
    P = len(pairs)
    scored = sum(p["scored"] for p in pairs)
    if scored == 0:
        return [0.0 for _ in budgets]
    free = sum(p["scored"] - len(p["targets"]) for p in pairs)
    segments = []  # (gain per unit of the average, cost in the average, gain in targets)
    for p in pairs:
        hull = concave_hull(max_cover_counts(p["targets"], tau))
        unit = 1.0 / (P * p["days"])  # what one fetch of this pair adds to the fetches/app/day average
        for (k0, c0), (k1, c1) in zip(hull, hull[1:]):
            cost = (k1 - k0) * unit
            segments.append(((c1 - c0) / cost, cost, c1 - c0))
    # Greedy fractional filling in decreasing gain per cost: optimal for a sum of concave pieces
    # under one linear budget (each pair's segments already come in decreasing slope).
    segments.sort(key=lambda s: -s[0])
    out = []
    for B in budgets:
        left, gained = float(B), 0.0
        for rate, cost, gain in segments:
            if left <= 0:
                break
            if cost <= left:
                left -= cost
                gained += gain
            else:
                gained += rate * left
                left = 0.0
        out.append((free + gained) / scored)
    return out


def clairvoyant_bound(users, budget, tau_min=15, warm_up_days=7, min_launches=20, launch_refreshes=True):
    """DOMAIN.md's clairvoyant bound at budget B (fetches/app/day averaged over pairs), a fraction:
    max over real k_p >= 0 with sum_p k_p / (P * D_p) <= B of sum_p hull(c_p)(k_p), plus the scored
    launches fresh without fetches, over all scored launches. `budget` may be a list (then a list).
    `users` is `load(db)`."""
    budgets, scalar = _as_list(budget)
    pairs = evaluated_pairs(users, tau_min, warm_up_days, min_launches, launch_refreshes)
    out = bound_from_pairs(pairs, budgets, tau_min)
    return out[0] if scalar else out


def fixed_points(pairs, periods_min, tau_min=15):
    """(fetches/app/day, fresh rate) of fixed(T) for each T in minutes, in closed form: fixed(T)
    fetches at t0 + n*T, so the last fetch at or before a launch L is (L - t0) mod T old; a target
    is fresh when that is <= tau; the others of the scored launches are fresh through the launch
    refresh anyway (a refresh is the later of the two, so fresh = either is within tau). Fetches
    counted: the n with S <= t0 + n*T <= E."""
    tau = tau_min * MINUTE
    T = np.asarray([round(m * MINUTE) for m in periods_min], dtype=np.int64)
    P = len(pairs)
    scored = sum(p["scored"] for p in pairs)
    fresh = np.full(len(T), sum(p["scored"] - len(p["targets"]) for p in pairs), dtype=np.int64)
    fpd = np.zeros(len(T))
    by_user = {}
    for p in pairs:
        by_user.setdefault(p["user"], []).append(p)
    for ps in by_user.values():
        t0, S, E, days = ps[0]["t0"], ps[0]["S"], ps[0]["E"], ps[0]["days"]
        since = np.concatenate([np.asarray(p["targets"], dtype=np.int64) for p in ps]) - t0
        rows = max(1, 4_000_000 // max(1, len(T)))
        for a in range(0, len(since), rows):
            fresh += ((since[a:a + rows, None] % T[None, :]) <= tau).sum(axis=0)
        counted = (E - t0) // T + (-(S - t0) // T) + 1  # floor((E-t0)/T) - ceil((S-t0)/T) + 1
        fpd += len(ps) * np.maximum(counted, 0) / days
    fpd = fpd / P if P else fpd
    rate = fresh / scored if scored else np.zeros(len(T))
    return list(zip(fpd.tolist(), rate.tolist()))


def pareto_front(points):
    """The points no other point beats (no more fetches/app/day and strictly fresher), by fetches."""
    front = []
    for x, y in sorted(points, key=lambda p: (p[0], -p[1])):
        if not front or y > front[-1][1]:
            front.append((x, y))
    return front


def running_max(points):
    """Every point, sorted by fetches/app/day, its fresh rate raised to the best so far: the other
    reading of "joined linearly" (dominated intervals stay as points at the running maximum, so the
    line between two Pareto points is cut by them); never above `pareto_front`'s join."""
    out, best = [], -math.inf
    for x, y in sorted(points, key=lambda p: (p[0], -p[1])):
        best = max(best, y)
        out.append((x, best))
    return out


def read_front(front, B):
    """The front joined linearly between neighbouring points, at B (flat past its last point; None
    below its first)."""
    if B < front[0][0]:
        return None
    for (x0, y0), (x1, y1) in zip(front, front[1:]):
        if B <= x1:
            return y0 + (y1 - y0) * (B - x0) / (x1 - x0)
    return front[-1][1]


def baseline_from_pairs(pairs, budgets, tau_min=15, periods_min=None, extra_periods_min=(), join="pareto"):
    """The fixed-interval baseline at each budget, in closed form (DOMAIN.md): what a fixed interval
    gives in expectation over its phase, (launches fresh without a fetch + targets * min(1, tau*B/1440))
    / scored launches. (`periods_min`, `extra_periods_min` and `join` belong to the earlier grid
    baseline, the Pareto front of fixed(T) over a grid; they are accepted and no longer read.)"""
    scored = sum(p["scored"] for p in pairs)
    targets = sum(len(p["targets"]) for p in pairs)
    if not scored:
        return [0.0 for _ in budgets]
    return [((scored - targets) + targets * min(1.0, tau_min * B / 1440)) / scored for B in budgets]


def fixed_baseline(users, budget, tau_min=15, warm_up_days=7, min_launches=20, launch_refreshes=True,
                   periods_min=None, extra_periods_min=(), join="pareto"):
    """DOMAIN.md's fixed-interval baseline at budget B, a fraction (a list for a list of budgets), in
    closed form (`baseline_from_pairs`)."""
    budgets, scalar = _as_list(budget)
    pairs = evaluated_pairs(users, tau_min, warm_up_days, min_launches, launch_refreshes)
    out = baseline_from_pairs(pairs, budgets, tau_min, periods_min, extra_periods_min, join)
    return out[0] if scalar else out


def budget_curve(db_path, budgets=STANDARD_BUDGETS, tau_min=15, warm_up_days=7, min_launches=20,
                 launch_refreshes=True, extra_periods_min=(), join="pareto"):
    """[{"budget", "bound", "fixed", "never"}] for a database, fresh rates as fractions."""
    pairs = evaluated_pairs(load(db_path), tau_min, warm_up_days, min_launches, launch_refreshes)
    bound = bound_from_pairs(pairs, budgets, tau_min)
    fixed = baseline_from_pairs(pairs, budgets, tau_min, extra_periods_min=extra_periods_min, join=join)
    scored = sum(p["scored"] for p in pairs)
    never = sum(p["scored"] - len(p["targets"]) for p in pairs) / scored if scored else 0.0
    return [{"budget": B, "bound": b, "fixed": f, "never": never} for B, b, f in zip(budgets, bound, fixed)]


def period_minutes(name):
    """The interval of a `fixed(...)` policy name in minutes (fixed(90s), fixed(15m), fixed(2h),
    fixed(1d)), None for other names."""
    if not (name.startswith("fixed(") and name.endswith(")")):
        return None
    body = name[len("fixed("):-1]
    for unit, minutes in (("ms", 1 / 60_000), ("s", 1 / 60), ("m", 1), ("h", 60), ("d", 1440)):
        if body.endswith(unit):
            try:
                return float(body[:-len(unit)]) * minutes
            except ValueError:
                return None
    return None


# ---------------------------------------------------------------------------------------------------
# Self-test on hand-made cases (and, given a database, cross-checks with the policies above).

def _user(days, apps, t0_day=19_800, warm_up_days=7):
    """A hand-made user in `load`'s shape: t0 at a UTC midnight (so S = t0 + warm_up_days days), E =
    S + days; apps {name: [launch times in minutes after S]} padded with 20 launches on the first
    day (warm-up: they count towards min_launches, are never scored and are hours before S)."""
    t0 = t0_day * DAY
    S = t0 + warm_up_days * DAY
    pad = [t0 + i * MINUTE for i in range(0, 20 * 30, 30)]
    return {"t0": t0, "E": S + round(days * DAY), "offset": 0, "app_names": {},
            "apps": {a: pad + [S + round(m * MINUTE) for m in sorted(ms)] for a, ms in apps.items()}}


def _brute_force_counts(targets, tau):
    """c(k) for every k by trying every set of k fetch times among the targets."""
    from itertools import combinations
    n = len(targets)
    out = []
    for k in range(n + 1):
        best = 0
        for starts in combinations(targets, k):
            best = max(best, sum(1 for t in targets if any(f <= t <= f + tau for f in starts)))
        out.append(best)
        if best == n:
            break
    return out


def selftest(db_path=None):
    import random
    import time
    ok = lambda a, b: abs(a - b) <= 1e-12
    m = MINUTE
    # 1. c(k): targets at 0, 10, 20 min, tau 15 min -> c(1) = 2, c(2) = 3; the window is closed.
    assert max_cover_counts([0, 10 * m, 20 * m], 15 * m) == [0, 2, 3]
    assert max_cover_counts([0, 15 * m], 15 * m) == [0, 2]
    assert max_cover_counts([0, 15 * m + 1], 15 * m) == [0, 1, 2]
    assert max_cover_counts([], 15 * m) == [0]
    # bursts 0,5,10 | 100,105 | 200 -> 3, 5, 6
    assert max_cover_counts([0, 5 * m, 10 * m, 100 * m, 105 * m, 200 * m], 15 * m) == [0, 3, 5, 6]
    # a fetch at the first target is not always best: 0, 10, 20, 25 -> one fetch at 10 covers 10, 20, 25
    assert max_cover_counts([0, 10 * m, 20 * m, 25 * m], 15 * m) == [0, 3, 4]
    # 2. the DP against brute force on random small instances
    rng = random.Random(7)
    for _ in range(400):
        ts = sorted(rng.sample(range(0, 150), rng.randint(1, 9)))
        assert max_cover_counts([t * m for t in ts], 15 * m) == _brute_force_counts(ts, 15), ts
    # 3. the concave hull
    assert concave_hull([0, 1, 4, 5]) == [(0, 0), (2, 4), (3, 5)]
    assert concave_hull([0, 3, 5, 6]) == [(0, 0), (1, 3), (2, 5), (3, 6)]
    assert concave_hull([0, 2, 4, 5]) == [(0, 0), (2, 4), (3, 5)]  # collinear middle vertex dropped
    # 4. one pair, 10 days, targets 0, 10, 20 min (launch refreshes off: all are targets): c = 0, 2, 3;
    #    a fetch costs 1/10 fetch/app/day.
    one = {"u": _user(10, {"a": [0, 10, 20]})}
    for B, want in [(0, 0), (0.05, 1 / 3), (0.1, 2 / 3), (0.15, 2.5 / 3), (0.2, 1), (5, 1)]:
        assert ok(clairvoyant_bound(one, B, launch_refreshes=False), want), (B, want)
    # launch refreshes on: 10 and 20 are within 15 min of the previous launch -> fresh without fetches;
    # one target (at 0; the padding ends hours before S).
    for B, want in [(0, 2 / 3), (0.05, 2.5 / 3), (0.1, 1)]:
        assert ok(clairvoyant_bound(one, B, launch_refreshes=True), want), (B, want)
    # 5. cost weighting by D_p: pair A (10 days) has 4 bursts of 3 launches (0, 5, 10 min) 1 h apart;
    #    pair B (20 days) 4 bursts of 2 (0, 10 min). P = 2, a fetch costs 1/(2*10) = 0.05 in A and 1/(2*20) = 0.025 in B: per unit of
    #    the average A gains 3/0.05 = 60, B 2/0.025 = 80, so B's fetches are bought first.
    two = {"A": _user(10, {"a": [h * 60 + d for h in range(4) for d in (0, 5, 10)]}),
           "B": _user(20, {"b": [h * 60 + d for h in range(4) for d in (0, 10)]})}
    total = 12 + 8
    cases = [(0.025, 2), (0.1, 8), (0.15, 8 + 3), (0.3, 20), (0.0125, 1), (0.125, 8 + 1.5)]
    for B, gained in cases:
        assert ok(clairvoyant_bound(two, B, launch_refreshes=False), gained / total), (B, gained)
    # with launch refreshes on each burst has 1 target (its first launch): 4 in A, 4 in B, 12 free;
    # B's targets cost 0.025 each (gain 40 per unit), A's 0.05 (gain 20 per unit).
    for B, gained in [(0.1, 4), (0.15, 5), (0.3, 8)]:
        assert ok(clairvoyant_bound(two, B, launch_refreshes=True), (12 + gained) / total), (B, gained)
    # 6. fixed(T) in closed form: t0 at midnight, S = t0 + 7 d, E = S + 2 d. fixed(1h) fetches on the
    #    hour: 49 in [S, E] -> 24.5 fetches/app/day; launches at S+30min (stale), S+1h10 (fresh),
    #    S+1h20 (fresh through the launch at S+1h10 with launch refreshes on; stale without).
    fx = {"u": _user(2, {"a": [30, 70, 80]})}
    pairs_on = evaluated_pairs(fx, launch_refreshes=True)
    pairs_off = evaluated_pairs(fx, launch_refreshes=False)
    (x, y), = fixed_points(pairs_on, [60])
    assert ok(x, 24.5) and ok(y, 2 / 3), (x, y)
    (x, y), = fixed_points(pairs_off, [60])
    assert ok(x, 24.5) and ok(y, 1 / 3), (x, y)
    # against score_pair's direct replay of the same fetches, for many T
    for lr, ps in ((True, pairs_on), (False, pairs_off)):
        launches = fx["u"]["apps"]["a"]
        u = fx["u"]
        S, E = ps[0]["S"], ps[0]["E"]
        for T, (x, y) in zip([7, 15, 29, 40, 60, 95, 1440], fixed_points(ps, [7, 15, 29, 40, 60, 95, 1440])):
            fetches = [u["t0"] + i * T * m for i in range((E - u["t0"]) // (T * m) + 1)]
            o = score_pair(launches, fetches, [], S, E, [15 * m], 15 * m, lr)
            assert ok(x, o["fpd"]) and ok(y, o["fresh"][0] / o["scored"]), (lr, T, x, o["fpd"], y, o["fresh"])
    # 7. the Pareto front, joined linearly: (0, .3), (1, .5), (2, .45) dominated, (4, .9)
    front = pareto_front([(0, .3), (1, .5), (2, .45), (4, .9), (4, .8)])
    assert front == [(0, .3), (1, .5), (4, .9)]
    assert ok(read_front(front, 0.5), .4) and ok(read_front(front, 2.5), .7) and ok(read_front(front, 9), .9)
    mono = running_max([(0, .3), (1, .5), (2, .45), (4, .9), (4, .8)])
    assert mono == [(0, .3), (1, .5), (2, .5), (4, .9), (4, .9)]
    assert ok(read_front(mono, 1.5), .5) and ok(read_front(mono, 3), .7)
    assert fixed_baseline(fx, 0, launch_refreshes=True) == 1 / 3  # never: S+1h20 through the launch
    assert period_minutes("fixed(2h)") == 120 and period_minutes("fixed(90s)") == 1.5 and period_minutes("oracle") is None
    print("hand-made cases: ok")
    if db_path is None:
        return
    # 8. On a database: the bound is at least every clairvoyant and fixed policy at its own
    #    fetches/app/day; c_p reaches all targets with exactly the oracle's fetches; the closed-form
    #    fixed(T) agrees with `evaluate`'s replay.
    for lr in (True, False):
        started = time.time()
        users = load(db_path)
        pairs = evaluated_pairs(users, launch_refreshes=lr)
        res = evaluate(db_path, launch_refreshes=lr)
        for p in pairs:
            u = users[p["user"]]
            K = len(max_cover_counts(p["targets"], 15 * m)) - 1
            assert K == len(oracle_fetches(u["apps"][p["app"]], p["S"], p["E"], 15 * m, lr)), p["app"]
        names = [n for n in res if n != "oracle"] + ["oracle"]
        bounds = bound_from_pairs(pairs, [res[n]["fpd"] for n in names])
        for n, b in zip(names, bounds):
            assert res[n]["fresh"][15] <= b + 1e-9, (lr, n, res[n]["fresh"][15], b)
        assert ok(bounds[-1], 1.0)
        for (n, T), (x, y) in zip(FIXED, fixed_points(pairs, [T for _, T in FIXED])):
            assert abs(x - res[n]["fpd"]) <= 1e-9 * max(1, x) and ok(y, res[n]["fresh"][15]), (n, x, y, res[n])
        print(f"{db_path}, launch refreshes {'on' if lr else 'off'}: {len(pairs)} pairs; bound >= every "
              f"clairvoyant and fixed policy; fixed(T) closed form = replay ({time.time() - started:.1f} s)")


def _main(argv):
    import argparse
    import json
    import sys
    import time
    ap = argparse.ArgumentParser(prog="protocol_check.py", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bound", help="the clairvoyant bound and the fixed-interval baseline at budgets, as JSON")
    b.add_argument("db")
    b.add_argument("--launch-refreshes", choices=["on", "off"], default="on")
    b.add_argument("--tau", type=float, default=15, help="minutes (default 15)")
    b.add_argument("--warm-up", type=int, default=7)
    b.add_argument("--min-launches", type=int, default=20)
    b.add_argument("--budgets", default=",".join(str(x) for x in STANDARD_BUDGETS))
    b.add_argument("--join", choices=["pareto", "running-max"], default="pareto",
                   help="how the fixed(T) points are joined (see running_max)")
    t = sub.add_parser("selftest", help="hand-made cases; with DB, also the cross-checks on it")
    t.add_argument("db", nargs="?")
    c = sub.add_parser("check", help="check a `fetchlab compare --format json` report's budget_curve against "
                                     "the independent bound and baseline (exit 1 on a difference over 0.5 points)")
    c.add_argument("db")
    c.add_argument("report")
    c.add_argument("--tolerance", type=float, default=0.005)
    args = ap.parse_args(argv)
    if args.command == "selftest":
        selftest(args.db)
        return
    if args.command == "check":
        with open(args.report) as f:
            report = json.load(f)
        s = report["settings"]
        points = report["budget_curve"]
        extra = [period_minutes(p["name"]) for p in report["policies"] if p["name"].startswith("fixed(")]
        mine = budget_curve(args.db, [p["budget"] for p in points], s["tau_minutes"], s["warm_up_days"],
                            s["min_launches"], s["launch_refreshes"], extra_periods_min=extra)
        worst = 0.0
        for theirs, ours in zip(points, mine):
            for key in ("bound", "fixed", "never"):
                worst = max(worst, abs(theirs[key] - ours[key]))
                print(f"budget {theirs['budget']:>5}: {key:5} fetchlab {theirs[key]:.4f}, independent {ours[key]:.4f}")
        pairs = evaluated_pairs(load(args.db), s["tau_minutes"], s["warm_up_days"], s["min_launches"],
                                s["launch_refreshes"])
        xs = [p["metrics"]["fetches_per_app_day"] for p in report["policies"]]
        above = [(p["name"], p["metrics"][f"fresh_{int(s['tau_minutes'])}m"], b)
                 for p, b in zip(report["policies"], bound_from_pairs(pairs, xs, s["tau_minutes"]))
                 if p["metrics"][f"fresh_{int(s['tau_minutes'])}m"] > b + 1e-9]
        print(f"largest difference {worst * 100:.3f} points over {len(points)} budgets; "
              f"{len(xs)} policies, {len(above)} above the independent bound at their own fetches/app/day")
        if worst > args.tolerance or above:
            print(f"FAILED: {above}" if above else f"FAILED: a difference over {args.tolerance * 100} points")
            sys.exit(1)
        return
    started = time.time()
    budgets = [float(x) for x in args.budgets.split(",")]
    curve = budget_curve(args.db, budgets, args.tau, args.warm_up, args.min_launches, args.launch_refreshes == "on",
                         join=args.join)
    print(json.dumps({"db": args.db, "launch_refreshes": args.launch_refreshes == "on", "tau_minutes": args.tau,
                      "fixed": "closed form", 
                      "budget_curve": curve, "seconds": round(time.time() - started, 2)}, indent=1))


if __name__ == "__main__":
    import sys
    _main(sys.argv[1:])
