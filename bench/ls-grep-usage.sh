#!/usr/bin/env bash
# The three store benchmarks in one run, one after the other on the same
# store (bench/ls.sh, bench/grep.sh, bench/usage.sh).
set -euo pipefail
here=$(dirname "$0")
"$here/ls.sh"
"$here/grep.sh"
"$here/usage.sh"
