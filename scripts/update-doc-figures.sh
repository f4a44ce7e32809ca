#!/usr/bin/env bash
# Rewrites every figure marker in README.md and docs/*.md from the binary:
#   <!-- figure: NAME -->VALUE<!-- /figure -->   (VALUE becomes what the binary counts for NAME)
# NAME is `scenarios`, `scenarios FILTER` (one `list --filter` expression), `checks`, `knobs`,
# `flows` (live flows: every flow but replay) or `attacks`. The rule these figures follow, and
# the test that holds it (Tests/HarnessTests/DocumentFiguresTests.swift), are in docs/testing.md.
#   bash scripts/update-doc-figures.sh [--check]
#     --check   change nothing; exit 1 and name each stale figure
#   SAMLH_BIN=PATH   the samlharness binary to ask (default: .build/debug/samlharness, built if missing)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
check=false
case "${1-}" in
  --check) check=true ;;
  "") ;;
  *) echo "usage: bash scripts/update-doc-figures.sh [--check]" >&2; exit 2 ;;
esac
bin=${SAMLH_BIN:-.build/debug/samlharness}
if [[ ! -x "$bin" ]]; then
  swift build --product samlharness
fi

# The binary's count for one figure name.
figure() {
  local name=$1
  case "$name" in
    scenarios) "$bin" list --count ;;
    "scenarios "*) "$bin" list --count --filter="${name#scenarios }" || true ;;  # a filter matching nothing: 0
    checks) "$bin" list --checks | grep -c . ;;
    knobs) "$bin" knobs | grep -v '^#' | cut -f1 | sed 's/=.*//' | sort -u | grep -c . ;;
    flows) "$bin" list --json | grep -o '"flow":"[^"]*"' | sort -u | grep -vc '"flow":"replay"' ;;
    attacks) "$bin" attack-sp --list | grep -c . ;;
    *) echo "update-doc-figures: unknown figure \`$name\` (see docs/testing.md)" >&2; return 2 ;;
  esac
}

files=(README.md docs/*.md)
values=$(mktemp)
trap 'rm -f "$values"' EXIT
# Every figure name used, once; its value beside it (NAME<TAB>VALUE).
grep -ohE '<!-- figure: [^>]*-->' "${files[@]}" | sed -E 's/^<!-- figure: (.*[^ ]) *-->$/\1/' | sort -u |
  while IFS= read -r name; do
    value=$(figure "$name" </dev/null | tail -n 1)
    [[ "$value" =~ ^[0-9]+$ ]] || { echo "update-doc-figures: \`$name\`: the binary answered '$value'" >&2; exit 1; }
    printf '%s\t%s\n' "$name" "$value"
  done >"$values"

stale=0
for file in "${files[@]}"; do
  # Perl rewrites each marker whose name it knows; fenced code blocks are left alone (a marker
  # there is shown verbatim, so it is an example, not a figure).
  new=$(FIGURES="$values" perl -0777 -pe '
    BEGIN { local $/ = "\n"; open my $f, "<", $ENV{FIGURES} or die; while (<$f>) { chomp; my ($n, $v) = split /\t/; $fig{$n} = $v } }
    my @parts = split /(^```.*?^```[^\n]*$)/ms;
    for my $i (0 .. $#parts) {
      next if $i % 2;
      $parts[$i] =~ s{(<!-- figure: (.*?) *-->)(.*?)(<!-- /figure -->)}{ exists $fig{$2} ? "$1$fig{$2}$4" : "$1$3$4" }ge;
    }
    $_ = join "", @parts;
  ' "$file")
  if [[ "$new" != "$(cat "$file")" ]]; then
    if $check; then
      echo "update-doc-figures: $file has stale figures:" >&2
      diff <(cat "$file") <(printf '%s\n' "$new") >&2 || true
      stale=1
    else
      printf '%s\n' "$new" >"$file"
      echo "update-doc-figures: rewrote $file"
    fi
  fi
done
exit $stale
