#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus into Fuzz/corpus/<target>/ (deterministic; small valid inputs
of every format, gzip'd and not). Run again after changing it; the files are committed."""
import gzip, io, os, zlib, shutil

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus")

def gz(b):
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as f:
        f.write(b)
    return buf.getvalue()

def raw_deflate(b):
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    return c.compress(b) + c.flush()

LOGS = {
    "usage": b"timestamp,user,app,event\n2024-03-01T12:00:00Z,u1,com.a,launch\n2024-03-01T12:05:00+01:00,u1,com.a,close\n1709294400,u2,\"com.b,x\",force_quit\n",
    "usage-tsv": b"timestamp\tuser\tapp\n2024-03-01T12:00:00Z\tu1\tcom.a\n",
    "usage-jsonl": b'{"timestamp": "2024-03-01T12:00:00Z", "user": "u1", "app": "com.a", "event": "launch"}\n{"timestamp": 1709294400123, "user": "u\\"2", "app": "com.b"}\n',
    "context": b"timestamp,user,battery,charging,network,low_power\n2024-03-01T12:00:00Z,u1,80,true,wifi,false\n2024-03-01T13:00:00Z,u1,,false,cellular,\n",
    "content": b"timestamp,app\n2024-03-01T12:00:00Z,com.a\n2024-03-01 13:00:00,com.b\n",
    "foreground": b"2023-12-17 20:25:43.749000,com.android.settings\n2023-12-17 20:27:51.405000,com.example.nextapp\n2023-12-17 20:27:51.405000,com.example.nextapp\n1970-01-01 01:00:00.000000,com.x\n",
    "battery": b"_id,ID,level,temperature,voltage,technology,status,health,usage,WiFi,Cellular,Hotspot,GPS,Bluetooth,RAM,Brightness,isInteractive,SampleFreq,brandModel,androidVersion,availCapacityPercentage,Timestamp\n5f1f,dev1,41,40.2,3.637,Li-ion,3,2,36,false,true,false,false,false,23.1,18,true,10,google-Nexus 5X,8.1.0,40,1595855428396\n",
    "usagestats": b'user=0\n  In-memory daily stats\n  packages\n    package=com.a totalTimeUsed="00:05" lastTimeUsed="2024-03-01 12:30:00"\n  Last 24 hour events (timeRange="2024-03-01 00:00:00 - 2024-03-02 00:00:00")\n    time="2024-03-01 12:00:00" type=ACTIVITY_RESUMED package=com.a class=com.a.Main flags=0x0 instanceId=7\n    time="2024-03-01 12:00:30" type=ACTIVITY_PAUSED package=com.a class=com.a.Main flags=0x0 instanceId=7\n    time="2024-03-01 12:00:31" type=SCREEN_NON_INTERACTIVE package=android flags=0x0\nuser=10\n    time="2017-05-01 09:00:00" type=MOVE_TO_FOREGROUND package=com.b class=com.b.X flags=0x0\n    time="2017-05-01 09:10:00" type=DEVICE_SHUTDOWN package=android flags=0x0\n    time="2017-05-01 09:1',
    "lsapp": b"user_id\tsession_id\ttimestamp\tapp_name\tevent_type\n1\t1\t2018-01-16 06:01:05\tChrome\tOpened\n1\t1\t2018-01-16 06:01:07\tChrome\tClosed\n",
}

def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# The partial target's seeds are real partials, made by a built fetchlab (FETCHLAB=path, or
# .build/release/fetchlab, .build/debug/fetchlab); without one, the committed ones are kept.
KEPT_PARTIALS = {}
PARTIAL_DIR = os.path.join(OUT, "partial")
if os.path.isdir(PARTIAL_DIR):
    for n in os.listdir(PARTIAL_DIR):
        KEPT_PARTIALS[n] = open(os.path.join(PARTIAL_DIR, n), "rb").read()
shutil.rmtree(OUT, ignore_errors=True)
# Decompressor: first byte = flags (bit 0 raw deflate, bit 1 small buffers).
text = LOGS["usage"] * 20
write("decompress", "gzip", b"\x00" + gz(text))
write("decompress", "gzip-small-buffers", b"\x02" + gz(text))
write("decompress", "multi-member", b"\x00" + gz(text) + gz(LOGS["context"]))
write("decompress", "zlib", b"\x00" + zlib.compress(text))
write("decompress", "plain", b"\x00" + text)
write("decompress", "raw-deflate", b"\x01" + raw_deflate(text))
write("decompress", "empty-gzip", b"\x00" + gz(b""))
# Readers: each format's files, plain and gzip'd (first byte odd: read local times in Europe/Berlin).
for target, names in {
    "usage": ["usage", "usage-tsv", "usage-jsonl"], "context": ["context"], "content": ["content"],
    "foreground": ["foreground"], "battery": ["battery"], "lsapp": ["lsapp"], "usagestats": ["usagestats"],
    "detect": list(LOGS),
}.items():
    for n in names:
        write(target, n, LOGS[n])
        write(target, n + ".gz", gz(LOGS[n]))
# Timestamps: first byte picks the parser.
for i, t in enumerate([b"2024-03-01T12:00:00Z", b"2024-03-01T12:00:00.123456+05:30", b"1709294400",
                       b"1709294400123", b"1709294400123456", b"2024-03-31 02:30:00", b"2024-10-27 02:30:00",
                       b"2023-12-17 20:25:43.749000", b"2024-02-29T23:59:60Z", b"\"2024-03-01T12:00:00Z\""]):
    write("timestamp", f"t{i}", bytes([i % 4]) + t)
# Knowledge stores (knowledgeC.db): tiny SQLite databases from the test schema, plain and gzip'd.
import sqlite3, tempfile
SCHEMA = open(os.path.join(HERE, "..", "Tests", "FetchLabIngestTests", "Resources", "knowledgeC-schema.sql")).read()
def knowledge(rows, schema=SCHEMA, source=""):
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "k.db")
        db = sqlite3.connect(p)
        db.execute("PRAGMA page_size=512")
        db.executescript(schema + source)
        db.executemany("INSERT INTO ZOBJECT (Z_PK, ZSTREAMNAME, ZSTARTDATE, ZENDDATE, ZVALUESTRING, ZVALUEINTEGER,"
                       " ZVALUEDOUBLE, ZSECONDSFROMGMT, ZSOURCE) VALUES (?,?,?,?,?,?,?,?,?)", rows)
        db.commit()
        db.execute("VACUUM")
        db.close()
        return open(p, "rb").read()
T = 730_987_200.0  # 2024-03-01T12:00:00Z in Core Data seconds
write("knowledgec", "infocus", knowledge([
    (1, "/app/inFocus", T, T + 300, "com.a", None, None, 3600, None),
    (2, "/app/inFocus", T + 360, T + 600, "com.a", None, None, 3600, None),
    (3, "/app/inFocus", T + 900, T + 1000, "com.b", None, None, -25200, 1),
    (4, "/app/inFocus", None, T, "com.c", None, None, 0, None),
], source="INSERT INTO ZSOURCE (Z_PK, ZDEVICEID) VALUES (1, 'dev1');"))
write("knowledgec", "device", knowledge([
    (1, "/device/isPluggedIn", T, T + 60, None, 1, None, 3600, None),
    (2, "/device/batteryPercentage", T, T + 60, None, None, 55.0, 3600, None),
    (3, "/device/isLocked", T + 100, T + 200, None, 1, None, 3600, None),
    (4, "/device/lowPowerMode", T + 300, T + 400, None, 0, None, 7200, None),
    (5, "/app/usage", T, T + 10, "com.u", None, None, 0, None),
]))
write("knowledgec", "usage.gz", gz(knowledge([(1, "/app/usage", T, T + 10, "com.u", None, None, 0, None)])))
write("knowledgec", "other-sqlite", knowledge([], schema="CREATE TABLE ZOBJECT_NOT (x); CREATE TABLE ZOBJECT (Z_PK INTEGER PRIMARY KEY, ZSTREAMNAME, ZSTARTDATE, ZENDDATE, ZVALUESTRING, ZVALUEINTEGER, ZVALUEDOUBLE, ZSECONDSFROMGMT, ZSOURCE);"))

# Partials (`partial` target): the first byte, bit 0 a tune's partial, bit 1 the configuration's
# fingerprint made again (Fuzz/Targets/Partial.swift); then the file, gzip'd as FetchLab writes it
# and plain (the reader takes plain JSON lines too, and the fuzzer mutates them better).
import subprocess
def fetchlab_binary():
    root = os.path.join(HERE, "..")
    for p in [os.environ.get("FETCHLAB"), os.path.join(root, ".build/release/fetchlab"),
              os.path.join(root, ".build/debug/fetchlab")]:
        if p and os.access(p, os.X_OK):
            return p
    return None

APPS = "com.example.chat,com.example.mail,com.example.news"  # three apps: small partials

def partials(exe):
    with tempfile.TemporaryDirectory() as d:
        def run(*args):
            subprocess.run([exe, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        db = os.path.join(d, "p.sqlite")
        run("generate", "--users", "6", "--days", "14", "--seed", "3", "--output", os.path.join(d, "pop"))
        run("import", "--db", db, os.path.join(d, "pop", "usage.csv.gz"))
        compare = ["compare", "--db", db, "--warm-up", "3", "--resamples", "0", "--no-store", "--format", "json",
                   "--output", os.path.join(d, "report.json"), "--force", "--apps", APPS]
        made = {}
        for name, extra in [
            ("compare-1of2", ["--policies", "oracle,fixed(1h),predictive(15m,0.3)", "--shard", "1/2"]),
            ("compare-2of2-per-user", ["--policies", "fixed(4h),predictive(15m,0.3)", "--shard", "2/2", "--per-user"]),
            ("compare-unsharded-ios", ["--policies", "fixed(1h)", "--resamples", "10", "--platform", "ios"]),
        ]:
            out = os.path.join(d, name + ".gz")
            run(*compare, *extra, "--partial", out)
            made[name] = (0, open(out, "rb").read())
        out = os.path.join(d, "tune.gz")
        run("tune", "--db", db, "--family", "fixed", "--grid", "interval=1h,4h", "--folds", "1", "--shard", "1/2",
            "--partial", out, "--no-store", "--apps", APPS)
        made["tune-1of2"] = (1, open(out, "rb").read())
        return made

exe = fetchlab_binary()
if exe:
    for name, (flags, data) in partials(exe).items():
        write("partial", name + ".gz", bytes([flags]) + data)
        write("partial", name + ".jsonl", bytes([flags | 2]) + gzip.decompress(data))
    # Not partials: empty, another format, JSON on one line that is not one.
    write("partial", "empty", b"\x00")
    write("partial", "other-format", b"\x00" + b'{"format":"fetchlab-partial 2"}\n')
    write("partial", "tune-of-comparison", b"\x01" + b'{"format":"fetchlab-partial 4"}\n')
else:
    for n, data in KEPT_PARTIALS.items():
        write("partial", n, data)
