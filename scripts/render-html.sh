#!/usr/bin/env bash
# Renders an HTML report in headless Chromium (Debian's `chromium`, installed by
# scripts/setup-report-tools.sh): a PNG screenshot and the DOM after scripts ran.
#
#   bash scripts/render-html.sh REPORT.html OUT_DIR [WIDTHxHEIGHT]
#
# Writes OUT_DIR/report.png and OUT_DIR/report.dom.html. The page is opened with a file://
# URL and the network disabled (the report must need nothing from outside).
# Environment: SAMLH_CHROMIUM  the browser binary (default: chromium)
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: render-html.sh REPORT.html OUT_DIR [WIDTHxHEIGHT]" >&2
  exit 2
fi
html="$1"
out="$2"
size="${3:-1400x2400}"
browser="${SAMLH_CHROMIUM:-chromium}"
if [[ ! -f "$html" ]]; then
  echo "render-html: no such file: $html" >&2
  exit 2
fi
if ! command -v "$browser" >/dev/null 2>&1; then
  echo "render-html: $browser is not installed (bash scripts/setup-report-tools.sh installs it)" >&2
  exit 3
fi
mkdir -p "$out"
url="file://$(cd "$(dirname "$html")" && pwd)/$(basename "$html")"
profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
# --no-sandbox: CI and this machine run as root, where Chromium's sandbox refuses to start.
# A proxy that does not exist stands for "no network": any external fetch would fail.
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars
       --no-first-run --no-default-browser-check --disable-extensions --mute-audio
       --user-data-dir="$profile" --proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>'
       --window-size="${size/x/,}" --virtual-time-budget=5000)
"$browser" "${flags[@]}" --screenshot="$out/report.png" "$url" >"$out/chromium.log" 2>&1 || {
  cat "$out/chromium.log" >&2; echo "render-html: chromium --screenshot failed" >&2; exit 1; }
"$browser" "${flags[@]}" --dump-dom "$url" >"$out/report.dom.html" 2>>"$out/chromium.log" || {
  cat "$out/chromium.log" >&2; echo "render-html: chromium --dump-dom failed" >&2; exit 1; }
[[ -s "$out/report.png" && -s "$out/report.dom.html" ]] || { echo "render-html: chromium wrote nothing" >&2; exit 1; }
echo "render-html: $out/report.png $out/report.dom.html"
