#!/usr/bin/env python3
"""Writes a catalog of N skills by copying the SKILL.md folders of SRC over and
over, each copy renamed (folder and frontmatter name get a -<k> suffix), for
start-up and memory benchmarks at scale.

usage: scripts/synth-catalog.py SRC DST N     (DST must not exist)
"""
import os, re, shutil, sys

def skill_folders(src):
    out = []
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if "SKILL.md" in files:
            out.append(root)
    return out

def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip())
    src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if os.path.exists(dst):
        sys.exit(f"synth-catalog: {dst} exists")
    folders = skill_folders(src)
    if not folders:
        sys.exit(f"synth-catalog: no SKILL.md under {src}")
    name_re = re.compile(r"^name:\s*(.*?)\s*$", re.M)
    made = 0
    k = 0
    while made < n:
        for f in folders:
            if made >= n:
                break
            rel = os.path.relpath(f, src)
            parent, base = os.path.split(rel)
            target = os.path.join(dst, f"copy{k}", parent, f"{base}-{k}" if k else base)
            shutil.copytree(f, target, ignore=shutil.ignore_patterns(".*"))
            if k:
                p = os.path.join(target, "SKILL.md")
                with open(p, encoding="utf-8", errors="surrogateescape") as fh:
                    text = fh.read()
                text = name_re.sub(lambda m: f"name: {m.group(1).strip(chr(34) + chr(39))}-{k}", text, count=1)
                with open(p, "w", encoding="utf-8", errors="surrogateescape") as fh:
                    fh.write(text)
            made += 1
        k += 1
    print(f"synth-catalog: {made} skills in {dst}")

main()
