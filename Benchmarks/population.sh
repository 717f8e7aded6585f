# Sourced by the replay benchmarks: the release binary ($BIN) and prepare_population.
# Expects $WORK (the benchmark's scratch directory) to be set.

# FETCHLAB_BIN=PATH measures that binary instead (e.g. a copy, so that the tree can be built while
# the benchmark runs).
if [ -n "${FETCHLAB_BIN:-}" ]; then
  BIN=$FETCHLAB_BIN
else
  swift build -c release --product fetchlab >&2
  BIN=$(swift build -c release --show-bin-path)/fetchlab
fi

# prepare_population NAME USERS DAYS: generates USERS x DAYS (seed 1) and imports it (usage,
# context, content) into a fresh database $WORK/NAME-USERS-DAYS.sqlite; prints its path.
prepare_population() {
  local name=$1 u=$2 d=$3
  local pop="$WORK/population-$u-$d" db="$WORK/$name-$u-$d.sqlite"
  rm -rf "$pop" "$db" "$db"-*
  "$BIN" generate --users "$u" --days "$d" --seed 1 --output "$pop" >/dev/null
  "$BIN" import --db "$db" "$pop"/*.csv.gz >/dev/null
  echo "$db"
}
