#!/usr/bin/env python3
"""Flag risky statements in a PostgreSQL migration file. Read-only.

Arguments (environment only):
  SKILL_ARG_FILE  path of the .sql migration to check (required)
Exit status: 0 no findings, 1 findings, 2 usage error.
"""
import os
import re
import sys

RULES = [
    (r"\bcreate\s+(unique\s+)?index\s+(?!concurrently\b)",
     "CREATE INDEX without CONCURRENTLY blocks writes"),
    (r"\bdrop\s+index\s+(?!concurrently\b)",
     "DROP INDEX without CONCURRENTLY blocks reads and writes"),
    (r"\balter\s+column\s+\w+\s+(set\s+data\s+)?type\b",
     "changing a column type usually rewrites the table"),
    (r"\bset\s+not\s+null\b",
     "SET NOT NULL scans the table; validate a CHECK constraint first"),
    (r"\brename\s+(column|to)\b",
     "renames break code that is still running; use expand/contract"),
    (r"\badd\s+(constraint\s+\w+\s+)?(foreign\s+key|check)\b(?![^;]*\bnot\s+valid\b)",
     "add the constraint NOT VALID, then VALIDATE it separately"),
    (r"\bdefault\s+(now|clock_timestamp|random|gen_random_uuid)\s*\(",
     "a volatile default rewrites the table"),
]


def strip_comments(sql: str) -> str:
    sql = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), sql, flags=re.S)
    return re.sub(r"--[^\n]*", "", sql)


def main() -> int:
    path = os.environ.get("SKILL_ARG_FILE", "")
    if not path:
        print("error: SKILL_ARG_FILE is required", file=sys.stderr)
        return 2
    try:
        with open(path, encoding="utf-8") as f:
            sql = strip_comments(f.read())
    except OSError as err:
        print(f"error: cannot read {path}: {err.strerror}", file=sys.stderr)
        return 2

    findings = []
    if not re.search(r"\bset\s+lock_timeout\b", sql, re.I):
        findings.append((1, "no SET lock_timeout; a blocked ALTER will queue every query"))
    for pattern, message in RULES:
        for m in re.finditer(pattern, sql, re.I):
            findings.append((sql.count("\n", 0, m.start()) + 1, message))

    for line, message in sorted(findings):
        print(f"{path}:{line}: {message}")
    if findings:
        return 1
    print(f"{path}: no findings")
    return 0


if __name__ == "__main__":
    sys.exit(main())
