#!/usr/bin/env bash
# Lists the installed PDF toolchain and prints the pandoc command to use.
# Read-only: it converts nothing and writes no file.
# Arguments (environment only):
#   SKILL_ARG_INPUT   Markdown source (default: report.md)
#   SKILL_ARG_OUTPUT  PDF to produce (default: report.pdf)
set -euo pipefail

input="${SKILL_ARG_INPUT:-report.md}"
output="${SKILL_ARG_OUTPUT:-report.pdf}"

have() { command -v "$1" >/dev/null 2>&1; }

if ! have pandoc; then
  echo "pandoc: missing (install it: https://pandoc.org/installing.html)"
  exit 1
fi
echo "pandoc: $(pandoc --version | head -n 1)"

engine=""
for candidate in weasyprint xelatex tectonic wkhtmltopdf; do
  if have "$candidate"; then
    echo "engine $candidate: found"
    if [ -z "$engine" ]; then
      engine="$candidate"
    fi
  else
    echo "engine $candidate: missing"
  fi
done

if [ -z "$engine" ]; then
  echo "no PDF engine found; install weasyprint (pip install weasyprint) or a TeX distribution" >&2
  exit 1
fi

echo
echo "Command:"
case "$engine" in
  weasyprint|wkhtmltopdf)
    echo "pandoc '$input' -o '$output' --pdf-engine=$engine --css templates/report.css --toc --number-sections --standalone" ;;
  *)
    echo "pandoc '$input' -o '$output' --pdf-engine=$engine --toc --number-sections -V geometry:margin=2.5cm -V papersize=a4" ;;
esac
