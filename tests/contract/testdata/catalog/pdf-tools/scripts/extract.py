#!/usr/bin/env python3
"""Print the text of every page of a PDF file."""
import sys

for path in sys.argv[1:]:
    print(f"== {path}")
