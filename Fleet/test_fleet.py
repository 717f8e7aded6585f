"""Unit tests of fleet.py's pure parts (run by Fleet/test): the shard hash and the check of what a
binary loads at run time.

    Fleet/.venv/bin/python Fleet/test_fleet.py FETCHLAB_BINARY
"""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet  # noqa: E402

BINARY = None


class ShardHash(unittest.TestCase):
    def test_fnv1a64_known_values(self):
        # FNV-1a 64's published test vectors.
        self.assertEqual(fleet.fnv1a64(""), 0xCBF29CE484222325)
        self.assertEqual(fleet.fnv1a64("a"), 0xAF63DC4C8601EC8C)
        self.assertEqual(fleet.fnv1a64("foobar"), 0x85944171F73967E8)

    def test_shards_are_one_based_and_cover_every_user(self):
        shards = {fleet.shard_of(f"user{i}", 5) for i in range(200)}
        self.assertEqual(shards, {1, 2, 3, 4, 5})


class NeededLibraries(unittest.TestCase):
    def test_a_text_file_is_not_elf(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("timestamp,user,app,event\n")
        try:
            self.assertIsNone(fleet.needed_libraries(f.name))
        finally:
            os.unlink(f.name)

    def test_a_damaged_elf_file_is_not_read(self):
        # ELF's magic and class, then a program header table pointing past the end of the file.
        with tempfile.NamedTemporaryFile("wb", delete=False) as f:
            f.write(b"\x7fELF\x02\x01\x01" + b"\0" * 25 + (10**6).to_bytes(8, "little") + b"\0" * 14
                    + (56).to_bytes(2, "little") + (3).to_bytes(2, "little") + b"\0" * 6)
        try:
            self.assertIsNone(fleet.needed_libraries(f.name))
        finally:
            os.unlink(f.name)

    @unittest.skipUnless(sys.platform.startswith("linux"), "ELF binaries on Linux")
    def test_fetchlab_names_the_system_libraries_it_links(self):
        names = fleet.needed_libraries(BINARY)
        self.assertIsNotNone(names)
        # Whether or not the Swift runtime is linked in, SQLite, zlib and glibc are the system's.
        for library in ("libsqlite3.so.0", "libz.so.1", "libc.so.6"):
            self.assertIn(library, names)

    @unittest.skipUnless(sys.platform.startswith("linux"), "ELF binaries on Linux")
    def test_a_cluster_is_warned_about_a_binary_that_loads_the_swift_runtime(self):
        loads_runtime = bool(fleet.swift_runtime_libraries(BINARY))
        warning = fleet.executor_warning(BINARY, "spark://head:7077")
        self.assertEqual(warning is not None, loads_runtime)
        if warning:
            self.assertIn("Fleet/build-executor-binary", warning)
        # Local mode runs on this machine, where the runtime is: never a warning.
        self.assertIsNone(fleet.executor_warning(BINARY, "local[2]"))

    def test_the_swift_runtime_is_told_apart_from_system_libraries(self):
        names = ["libsqlite3.so.0", "libswiftCore.so", "libFoundationEssentials.so", "libdispatch.so",
                 "lib_FoundationICU.so", "libz.so.1", "libstdc++.so.6", "libc.so.6"]
        self.assertEqual(
            fleet.swift_runtime(names),
            ["libswiftCore.so", "libFoundationEssentials.so", "libdispatch.so", "lib_FoundationICU.so"])


if __name__ == "__main__":
    BINARY = sys.argv.pop(1)
    unittest.main(verbosity=1)
