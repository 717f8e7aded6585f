#!/usr/bin/env python3
"""Tests of Docs/examples.py with the real fetchlab: a block it wrote passes --check, one changed
output line fails it (naming the line), a changed elapsed time does not, and a command that fails
unannounced is an error naming the file and line; several example-only lines keep several parts.

    python3 Docs/examples_test.py --bin .build/debug/fetchlab      (.ci/run runs it)
"""

import argparse
import re
import shutil
import subprocess
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = None


class ExamplesTests(unittest.TestCase):
    def setUp(self):
        self.dir = ROOT / ".build" / "examples-test"
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        self.doc = self.dir / "page.md"

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def examples(self, *options):
        done = subprocess.run(
            [sys.executable, str(ROOT / "Docs" / "examples.py"), "--bin", str(BIN), *options, str(self.doc)],
            capture_output=True, text=True,
        )
        return done.returncode, done.stderr

    def written(self):
        self.doc.write_text(
            "Some prose.\n\n<!-- example: fetchlab generate --users 2 --days 8 --seed 1 --output pop -->\n```\n```\n\nMore.\n"
        )
        status, err = self.examples()
        self.assertEqual(status, 0, err)
        return self.doc.read_text()

    def test_a_written_block_holds_the_command_and_its_output_and_passes_the_check(self):
        text = self.written()
        self.assertIn("$ fetchlab generate --users 2 --days 8 --seed 1 --output pop\npop: 2 users × 8 days", text)
        status, err = self.examples("--check")
        self.assertEqual(status, 0, err)

    def test_one_changed_output_line_fails_the_check_and_writes_nothing(self):
        text = self.written()
        stale = text.replace("pop: 2 users", "pop: 3 users")
        self.assertNotEqual(stale, text)
        self.doc.write_text(stale)
        status, err = self.examples("--check")
        self.assertEqual(status, 1, err)
        self.assertIn("-pop: 3 users", err)
        self.assertIn("+pop: 2 users", err)
        self.assertIn("no longer prints", err)
        self.assertEqual(self.doc.read_text(), stale)

    def test_a_changed_elapsed_time_is_not_stale(self):
        text = self.written()
        other = re.sub(r"in \d+(\.\d+)? s", "in 99.99 s", text)
        self.assertNotEqual(other, text)
        self.doc.write_text(other)
        status, err = self.examples("--check")
        self.assertEqual(status, 0, err)

    def test_several_example_only_lines_keep_each_part_in_order_joined_by_an_ellipsis(self):
        self.doc.write_text(
            "<!-- example-only: ^beta -->\n<!-- example-only: ^delta -->\n"
            "<!-- example: printf 'alpha\\nbeta\\nbeta2\\n\\ngamma\\n\\ndelta\\nepsilon\\n' -->\n```\n```\n"
        )
        status, err = self.examples()
        self.assertEqual(status, 0, err)
        self.assertIn("'\nbeta\nbeta2\n…\ndelta\nepsilon\n```", self.doc.read_text())
        status, err = self.examples("--check")
        self.assertEqual(status, 0, err)

    def test_a_command_that_fails_unannounced_names_the_file_and_line(self):
        self.doc.write_text("<!-- example: fetchlab inspect --db missing.sqlite -->\n```\n```\n")
        status, err = self.examples()
        self.assertEqual(status, 1, err)
        self.assertIn("page.md:1: `fetchlab inspect --db missing.sqlite` exited 1", err)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, type=Path)
    args, rest = parser.parse_known_args()
    BIN = args.bin.resolve()
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)
