#!/usr/bin/env bash
# Fuzzes the data path with libFuzzer: the decompressor, each log format's reader and the
# timestamp parser, each for SECONDS, from the seed corpus in Fuzz/corpus/.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]     (default: 60 s each, every target)
#   FUZZ_RUNS=1000000 Fuzz/run.sh 900 …   (stop at that many executions, SECONDS at most)
#   targets: decompress timestamp layout usage context content foreground battery lsapp usagestats detect knowledgec
#            partial
#
# Builds each target with `swiftc -sanitize=fuzzer,address` (FetchLabCore and FetchLabIngest
# compiled into the target; FetchLabIngest's package dependencies, swift-crypto and swift-system,
# built by SwiftPM in release mode and linked in uninstrumented), runs it, and prints executions,
# coverage and corpus size. A crash, leak, timeout or sanitizer report fails the run and its input
# is copied to Fuzz/regressions/<target>/, which the normal test suite replays (FuzzRegressionTests).
# Not part of `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-60}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(decompress timestamp layout usage context content foreground battery lsapp usagestats detect knowledgec partial)
BUILD=.build/fuzz
SRC="$BUILD/src-$$"  # per run, so that runs in parallel do not share sources
mkdir -p "$SRC"
trap 'rm -rf "$SRC"' EXIT
# One module: the fuzzer build has no SwiftPM, so FetchLabCore's files join FetchLabIngest's, with
# the two files of FetchLabResults that the readers fill (a format's name, the read counts and rejects).
for f in Sources/FetchLabCore/*.swift Sources/FetchLabResults/Summaries/{LogFormat,ReadCounts}.swift \
  $(find Sources/FetchLabIngest -name '*.swift' | sort); do
  sed '/^import FetchLabCore$/d; /^import FetchLabResults$/d' "$f" > "$SRC/$(echo "$f" | tr / _)"
done

# FetchLabIngest's package dependencies: their modules and object files from SwiftPM's build.
# (swift-crypto, swift-system, and swift-collections' HeapModule for the foreground reader)
swift build -c release --target FetchLabIngest >&2
DEPS=$(swift build -c release --show-bin-path)
# GRDBSQLite: the system sqlite3 through GRDB's module map (the Knowledge store reader).
DEP_FLAGS=(-I "$DEPS/Modules" -Xcc -fmodule-map-file=.build/checkouts/swift-system/Sources/CSystem/include/module.modulemap
  -Xcc -fmodule-map-file=.build/checkouts/GRDB.swift/Sources/GRDBSQLite/module.modulemap)
DEP_OBJECTS=()
while IFS= read -r o; do DEP_OBJECTS+=("$o"); done < <(
  find "$DEPS"/{Crypto,CryptoBoringWrapper,CCryptoBoringSSL,CCryptoBoringSSLShims,SystemPackage,CSystem,HeapModule,InternalCollectionsUtilities}.build \
    -name '*.o' | sort)

# The partial target (the partial reader, FetchLabScale's PartialFile and TunePartialFile, and
# the merge path in FetchLabSimulation): each module it needs compiled on its own, instrumented,
# in dependency order (merged into one module, their names would clash), into a directory named
# by a hash of their sources and flags, so that a run reuses the modules a former run built.
# (Their own module directory comes first: SwiftPM's release build has uninstrumented ones.)
MOD_FLAGS=(-O -wmo -sanitize=fuzzer,address -parse-as-library -package-name FetchLab -I Sources/CZlib)
MOD_OBJECTS=()
build_modules() {
  local list="$SRC/modules.list"
  : > "$list"
  for m in FetchLabCore FetchLabResults FetchLabPredict FetchLabIngest FetchLabSimulation FetchLabScale; do
    find "Sources/$m" -name '*.swift' | sort | sed "s|^|$m |" >> "$list"
  done
  local key
  key=$( (echo "${MOD_FLAGS[*]} ${DEP_FLAGS[*]}"; swiftc --version 2>&1; cut -d' ' -f2 "$list" | xargs cat) | sha256sum | cut -c1-16)
  MOD="$BUILD/modules-$key"
  if [ ! -f "$MOD/done" ]; then
    local tmp="$BUILD/modules-tmp-$$"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    for m in FetchLabCore FetchLabResults FetchLabPredict FetchLabIngest FetchLabSimulation FetchLabScale; do
      echo "fuzz: compiling $m (instrumented)" >&2
      swiftc "${MOD_FLAGS[@]}" -I "$tmp" "${DEP_FLAGS[@]}" -module-name "$m" -emit-module -emit-module-path "$tmp/$m.swiftmodule" \
        -c $(grep "^$m " "$list" | cut -d' ' -f2) -o "$tmp/$m.o" 2> "$BUILD/build-module-$m.log" \
        || { cat "$BUILD/build-module-$m.log" >&2; rm -rf "$tmp"; exit 1; }
    done
    touch "$tmp/done"
    rm -rf "$MOD"
    mv "$tmp" "$MOD"
  fi
  MOD_OBJECTS=("$MOD"/*.o)
}

status=0
printf "%-11s %12s %10s %8s %8s  %s\n" target executions exec/s cov corpus result
for t in "${TARGETS[@]}"; do
  case $t in
    decompress) src=Fuzz/Targets/Decompress.swift; flags=() ;;
    timestamp) src=Fuzz/Targets/Timestamp.swift; flags=() ;;
    layout) src=Fuzz/Targets/DateLayout.swift; flags=() ;;
    knowledgec) src=Fuzz/Targets/KnowledgeStore.swift; flags=() ;;
    partial) src=Fuzz/Targets/Partial.swift; flags=() ;;
    usage|context|content|foreground|battery|lsapp|usagestats|detect)
      src=Fuzz/Targets/LogReader.swift; flags=(-D "FUZZ_$(echo "$t" | tr a-z A-Z)") ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  bin="$BUILD/fuzz-$t-$$"
  if [ "$t" = partial ]; then
    build_modules
    swiftc "${MOD_FLAGS[@]}" -I "$MOD" "${DEP_FLAGS[@]}" -module-name FuzzPartial Fuzz/Targets/Support.swift "$src" \
      "${MOD_OBJECTS[@]}" "${DEP_OBJECTS[@]}" -lz -lsqlite3 -lstdc++ -o "$bin" 2> "$BUILD/build-$t.log" \
      || { cat "$BUILD/build-$t.log" >&2; exit 1; }
  else
    swiftc -O -sanitize=fuzzer,address -parse-as-library -module-name FuzzIngest -I Sources/CZlib "${DEP_FLAGS[@]}" \
      ${flags[@]+"${flags[@]}"} "$SRC"/*.swift Fuzz/Targets/Support.swift "$src" "${DEP_OBJECTS[@]}" -lz -lsqlite3 -lstdc++ \
      -o "$bin" 2> "$BUILD/build-$t.log" \
      || { cat "$BUILD/build-$t.log" >&2; exit 1; }
  fi
  mkdir -p "$BUILD/corpus-$t" "$BUILD/artifacts-$t"
  log="$BUILD/fuzz-$t.log"
  set +e
  runs=()
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS")
  "$bin" ${runs[@]+"${runs[@]}"} -max_total_time="$SECS" -seed=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts-$t/" "$BUILD/corpus-$t" "Fuzz/corpus/$t" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*' || echo 0)
  result=ok
  if [ $rc -ne 0 ]; then
    result="FAILED (see $log)"
    status=1
    mkdir -p "Fuzz/regressions/$t"
    cp "$BUILD/artifacts-$t"/* "Fuzz/regressions/$t/" 2>/dev/null || true
  fi
  printf "%-11s %12s %10s %8s %8s  %s\n" "$t" "$execs" "$rate" "$cov" "$corp" "$result"
done
exit $status
