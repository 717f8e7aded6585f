"""FetchLab on Apache Spark: a fleet's launch logs compared across executors, merged exactly.

    Fleet/fleet.py --usage PATH [--context PATH] [--content PATH] [--input-format csv|parquet]
                   --fetchlab BIN --out DIR [--shards N] [--master URL] [-- COMPARE OPTIONS...]

1. Reads the logs as fleets keep them: a file, directory, glob or object-store prefix (s3a://,
   gs://, hdfs://) of CSV (gzip'd or not) or Parquet, with FetchLab's columns (usage:
   timestamp,user,app,event; context: timestamp,user,battery,...; content: timestamp,app).
2. Puts each user in shard I of N by the same stable hash `fetchlab compare --shard I/N` uses
   (FNV-1a, 64 bits, of the name's UTF-8 bytes, modulo N), one Spark partition per shard.
3. On each executor, for its shard: writes the shard's rows as gzip'd CSV, imports them into a
   temporary SQLite database and runs `fetchlab compare --shard I/N --partial FILE` (the binary
   reaches the executors through SparkContext.addFile, the mechanism behind spark-submit --files).
4. On the driver: collects the partials, asks `fetchlab merge` for the timeline's user, fetches that
   one user's rows, and merges into DIR/fleet.sqlite (the run, stored like any other, and that
   user's logs), DIR/report.json and DIR/report.html; the partials stay in DIR/partials/.

The merged report is the one `fetchlab compare` gives on one machine over the same logs, byte for
byte apart from the run id (Fleet/test checks it in local mode).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import os
import struct
import subprocess
import sys
import tempfile
import time
from typing import NoReturn

# The Swift runtime's shared libraries: a binary that needs one runs only where Swift is installed.
SWIFT_RUNTIME = ("libswift", "libFoundation", "lib_Foundation", "libdispatch", "libBlocksRuntime")


def fnv1a64(name: str) -> int:
    """FNV-1a, 64 bits, of the UTF-8 bytes of `name` (FetchLab's UserShard.hash)."""
    h = 0xCBF29CE484222325
    for byte in name.encode("utf-8"):
        h ^= byte
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def shard_of(user: str, shards: int) -> int:
    """The shard (1...shards) that `fetchlab compare --shard I/N` puts `user` in."""
    return fnv1a64(user) % shards + 1


def needed_libraries(path: str) -> list[str] | None:
    """The shared libraries an ELF binary names (its DT_NEEDED entries), in order; None when `path`
    is not a 64-bit little-endian ELF file (a macOS binary, say)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or len(data) < 64 or data[4] != 2 or data[5] != 1:
        return None
    try:
        return _dt_needed(data)
    except (struct.error, ValueError, IndexError):
        return None  # a truncated or damaged file: nothing can be said of it


def _dt_needed(data: bytes) -> list[str]:
    """The DT_NEEDED names of a 64-bit little-endian ELF image (raises on a damaged one)."""
    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    segments = [struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize) for i in range(phnum)]
    # Virtual addresses to file offsets, through the loadable segments.
    loads = [(vaddr, offset, filesz) for kind, _, offset, vaddr, _, filesz in segments if kind == 1]

    def file_offset(address: int) -> int | None:
        for vaddr, offset, size in loads:
            if vaddr <= address < vaddr + size:
                return offset + address - vaddr
        return None

    dynamic = next(((offset, size) for kind, _, offset, _, _, size in segments if kind == 2), None)
    if dynamic is None:
        return []  # linked statically throughout
    entries = []
    for i in range(dynamic[1] // 16):
        tag, value = struct.unpack_from("<qQ", data, dynamic[0] + 16 * i)
        if tag == 0:
            break
        entries.append((tag, value))
    strtab = next((file_offset(v) for t, v in entries if t == 5), None)
    if strtab is None:
        return []
    names = []
    for tag, value in entries:
        if tag == 1:
            start = strtab + value
            names.append(data[start:data.index(b"\0", start)].decode("utf-8", "replace"))
    return names


def swift_runtime(names: list[str]) -> list[str]:
    """The Swift runtime libraries among shared library names."""
    return [name for name in names if name.startswith(SWIFT_RUNTIME)]


def swift_runtime_libraries(path: str) -> list[str]:
    """The Swift runtime libraries the binary at `path` loads at run time (empty: none, or not ELF)."""
    return swift_runtime(needed_libraries(path) or [])


def executor_warning(binary: str, master: str) -> str | None:
    """A warning when `binary` loads the Swift runtime and `master` is a cluster's (not local mode,
    where the executors are this machine): its executors may have no Swift installed."""
    runtime = swift_runtime_libraries(binary)
    if not runtime or master.startswith("local"):
        return None
    return (
        f"warning: --fetchlab {binary} loads the Swift runtime ({', '.join(runtime[:3])}, ...): executors without "
        "Swift installed cannot run it; Fleet/build-executor-binary builds one that carries it")


def note(message: str) -> None:
    print(f"fleet: {message}", file=sys.stderr, flush=True)


def fail(message: str) -> NoReturn:
    print(f"fleet: error: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def csv_lines(header: list[str], rows) -> bytes:
    """`rows` as CSV with `header`, gzip'd: each row a line as read (CSV input, kept verbatim) or
    a tuple of strings (Parquet)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        if isinstance(row, str):
            buffer.write(row)
            buffer.write("\n")
        else:
            writer.writerow(row)
    return gzip.compress(buffer.getvalue().encode("utf-8"), compresslevel=1)


def keyed_lines(sc, spark, path: str, kind: str):
    """A CSV table as (user, (kind, line)) pairs: its lines verbatim (no row objects: the fastest
    way through Python), every file's header line dropped; and the header's columns."""
    columns = spark.read.option("header", True).option("inferSchema", False).csv(path).columns
    if "user" not in columns:
        return None, columns
    header = ",".join(columns)
    at = columns.index("user")

    def user_of(line: str) -> str:
        if '"' in line:
            return next(csv.reader([line]))[at]
        return line.split(",")[at]

    lines = sc.textFile(path).filter(lambda l: l and l.rstrip("\r") != header)
    return lines.map(lambda l: (user_of(l), (kind, l.rstrip("\r")))), columns


def run(command: list[str], what: str) -> subprocess.CompletedProcess:
    """Runs a fetchlab command; its first error line becomes the error."""
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        lines = [l for l in done.stderr.splitlines() if l.strip()]
        raise RuntimeError(f"{what}: {lines[-1] if lines else f'exit {done.returncode}'}")
    return done


def compare_shard(index, rows, *, binary_name, shards, headers, content, compare_options):
    """One partition (shard index + 1): import its rows and compare them into a partial."""
    from pyspark import SparkFiles

    binary = SparkFiles.get(binary_name)
    if not os.access(binary, os.X_OK):
        os.chmod(binary, 0o755)
    shard = index + 1
    by_kind: dict[str, list] = {"usage": [], "context": []}
    for _, (kind, values) in rows:
        by_kind[kind].append(values)
    if not by_kind["usage"]:
        return
    with tempfile.TemporaryDirectory(prefix=f"fetchlab-shard-{shard}-") as scratch:
        files = []
        for kind in ("usage", "context"):
            if by_kind[kind]:
                path = os.path.join(scratch, f"{kind}.csv.gz")
                with open(path, "wb") as f:
                    f.write(csv_lines(headers[kind], by_kind[kind]))
                files.append(path)
        if content is not None:
            path = os.path.join(scratch, "content.csv.gz")
            with open(path, "wb") as f:
                f.write(csv_lines(headers["content"], content.value))
            files.append(path)
        db = os.path.join(scratch, "shard.sqlite")
        partial = os.path.join(scratch, "shard.partial")
        started = time.time()
        run([binary, "import", "--db", db] + files, f"shard {shard}/{shards}: import")
        imported = time.time()
        run(
            [binary, "compare", "--db", db, "--no-store", "--format", "csv", "--shard", f"{shard}/{shards}",
             "--partial", partial] + compare_options,
            f"shard {shard}/{shards}: compare",
        )
        with open(partial, "rb") as f:
            data = f.read()
        yield (shard, data, imported - started, time.time() - imported)


def read_table(spark, path: str, input_format: str):
    """A table of strings: CSV as written, Parquet's timestamps as ISO 8601 instants (UTC)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import TimestampType

    if input_format == "parquet":
        df = spark.read.parquet(path)
        columns = []
        for field in df.schema.fields:
            if isinstance(field.dataType, TimestampType):
                columns.append(F.date_format(F.col(field.name), "yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").alias(field.name))
            else:
                columns.append(F.col(field.name).cast("string").alias(field.name))
        return df.select(columns)
    return spark.read.option("header", True).option("inferSchema", False).csv(path)


def main(argv: list[str]) -> None:
    if "--" in argv:
        cut = argv.index("--")
        argv, compare_options = argv[:cut], argv[cut + 1:]
    else:
        compare_options = []
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--usage", required=True, help="usage logs: file, directory, glob or object-store prefix")
    parser.add_argument("--context", help="device-context logs (optional)")
    parser.add_argument("--content", help="content-update logs (optional; every shard gets all of them)")
    parser.add_argument("--input-format", choices=["csv", "parquet"], default="csv")
    parser.add_argument("--fetchlab", required=True, help="the fetchlab binary to ship to the executors")
    parser.add_argument("--out", required=True, help="directory for the partials, the run and the reports")
    parser.add_argument("--shards", type=int, help="shards (Spark partitions); default: the default parallelism")
    parser.add_argument("--master", help="Spark master (default: spark-submit's, or local[*])")
    args = parser.parse_args(argv)
    if not os.access(args.fetchlab, os.X_OK):
        fail(f"--fetchlab {args.fetchlab}: not an executable file")
    if os.path.exists(args.out) and os.listdir(args.out):
        fail(f"--out {args.out}: exists and is not empty (choose a new directory)")
    os.makedirs(os.path.join(args.out, "partials"), exist_ok=True)
    binary = os.path.abspath(args.fetchlab)

    from pyspark import SparkConf, SparkContext, StorageLevel
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.appName("fetchlab-fleet")
        .config("spark.sql.session.timeZone", "UTC")
        # Spark's progress bars on stderr only when it is a terminal.
        .config("spark.ui.showConsoleProgress", str(sys.stderr.isatty()).lower())
    )
    if args.master:
        builder = builder.master(args.master)
    else:
        # Under spark-submit the JVM already holds --master; run as a plain script, it does not.
        SparkContext._ensure_initialized()
        if not SparkConf().contains("spark.master"):
            builder = builder.master("local[*]")
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    warning = executor_warning(args.fetchlab, sc.master)
    if warning:
        note(warning)
    sc.addFile(binary)
    shards = args.shards or sc.defaultParallelism
    started = time.time()

    headers = {}
    tables = []
    frames = {}
    for kind, path in (("usage", args.usage), ("context", args.context)):
        if path is None:
            continue
        if args.input_format == "csv":
            keyed, columns = keyed_lines(sc, spark, path, kind)
        else:
            frames[kind] = read_table(spark, path, args.input_format)
            columns = frames[kind].columns
            keyed = frames[kind].rdd.map(lambda r, kind=kind: (r["user"], (kind, tuple(r)))) if "user" in columns else None
        if keyed is None:
            fail(f"--{kind} {path}: no column 'user' (has {', '.join(columns) or 'no columns'})")
        if kind == "usage":
            for column in ("timestamp", "app", "event"):
                if column not in columns:
                    fail(f"--usage {path}: no column '{column}' (has {', '.join(columns)})")
        headers[kind] = columns
        tables.append(keyed)
    content = None
    content_rows = None
    if args.content:
        content_table = read_table(spark, args.content, args.input_format)
        headers["content"] = content_table.columns
        content_rows = [tuple(r) for r in content_table.collect()]
        content = sc.broadcast(content_rows)

    n = shards
    keyed = sc.union(tables).map(lambda kv: (shard_of(kv[0], n), kv[1]))
    options = list(compare_options)
    name = os.path.basename(binary)
    # Every shard is compared at once on the executors and its partial kept there (on disk); then
    # the driver fetches the partials one at a time, writing each before the next, so that it holds
    # one shard's partial, not the fleet's (collect() would hold them all). toLocalIterator yields
    # the partitions in order: the paths are in shard order.
    partials = (
        keyed.partitionBy(n, lambda k: k - 1)
        .mapPartitionsWithIndex(
            lambda i, rows: compare_shard(
                i, rows, binary_name=name, shards=n, headers=headers, content=content, compare_options=options))
        .persist(StorageLevel.DISK_ONLY)
    )
    if partials.count() == 0:
        fail(f"--usage {args.usage}: no usage rows")
    compared = time.time()
    paths = []
    for shard, data, import_s, compare_s in partials.toLocalIterator():
        path = os.path.join(args.out, "partials", f"shard-{shard}-of-{n}.partial")
        with open(path, "wb") as f:
            f.write(data)
        paths.append(path)
    partials.unpersist()
    note(f"{len(paths)} shards of {n} compared on the executors in {compared - started:.1f} s")

    # The timeline replays one user's day: that user's logs, fetched alone, into the run's database.
    user = run([binary, "merge", *paths, "--print-timeline-user"], "merge").stdout.strip()
    timeline = os.path.join(args.out, "timeline")
    os.makedirs(timeline)
    files = []
    for kind, path in (("usage", args.usage), ("context", args.context)):
        if path is None:
            continue
        table = frames[kind] if kind in frames else read_table(spark, path, args.input_format)
        rows = [tuple(r) for r in table.where(table["user"] == user).collect()]
        if rows:
            path = os.path.join(timeline, f"{kind}.csv.gz")
            with open(path, "wb") as f:
                f.write(csv_lines(headers[kind], rows))
            files.append(path)
    if content_rows is not None:
        path = os.path.join(timeline, "content.csv.gz")
        with open(path, "wb") as f:
            f.write(csv_lines(headers["content"], content_rows))
        files.append(path)
    spark.stop()
    db = os.path.join(args.out, "fleet.sqlite")
    run([binary, "import", "--db", db] + files, "import of the timeline's user")
    report = os.path.join(args.out, "report.json")
    run([binary, "merge", *paths, "--db", db, "--format", "json", "--output", report], "merge")
    run([binary, "report", "--db", db, "--output", os.path.join(args.out, "report.html")], "report")
    import json

    with open(report) as f:
        run_id = json.load(f)["run_id"]
    table = run([binary, "runs", "show", str(run_id), "--db", db], "runs show").stdout
    sys.stdout.write(table)
    note(
        f"merged {len(paths)} partials in {time.time() - compared:.1f} s: {report}, "
        f"{os.path.join(args.out, 'report.html')}, run stored in {db}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
