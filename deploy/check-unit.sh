#!/usr/bin/env bash
# Checks deploy/ci-stats.service as systemd reads it (CI runs this from .ci/run):
# `systemd-analyze verify` with no error and no warning (an unknown or misspelt directive is only
# a warning to systemd, and would silently drop a protection), and `systemd-analyze security`
# holding the hardening to an exposure of 2.0 at most (it is 1.4; 10 is unprotected).
set -euo pipefail
cd "$(dirname "$0")"
unit=ci-stats.service

if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze is missing (Debian: apt-get install systemd)" >&2
  exit 1
fi

# verify checks that ExecStart's program exists: where Node is not /usr/bin/node (a developer's
# nvm, say), the same unit is checked with this machine's Node instead.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node_path=$(command -v node)
sed "s#^ExecStart=/usr/bin/node #ExecStart=${node_path} #" "$unit" > "$work/$unit"

if ! out=$(systemd-analyze verify "$work/$unit" 2>&1) || [ -n "$out" ]; then
  echo "systemd-analyze verify $unit:" >&2
  echo "$out" >&2
  exit 1
fi
if ! systemd-analyze security --offline=true --threshold=20 "$work/$unit" > "$work/security.txt" 2>&1; then
  echo "systemd-analyze security $unit: exposure over 2.0" >&2
  grep -v '^✓' "$work/security.txt" >&2
  exit 1
fi
sh -n ci-stats-admin
echo "$unit: verified; $(tail -n 1 "$work/security.txt" | sed 's/^→ //')"
