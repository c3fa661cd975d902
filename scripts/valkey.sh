#!/usr/bin/env bash
# Puts Debian's valkey-server 8 (bookworm-backports) into .cache/valkey/ of this repo, without installing it:
# `apt-get download` + `dpkg -x`, with a sources list, package lists and cache of its own, so neither the
# system's apt state nor its redis-server changes. Prints the binary's path. Idempotent: a binary already
# there is reused. Tests start it with RXLOCK_SERVER=valkey (test/support/redisServer.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/.cache/valkey"
binary="$root/usr/bin/valkey-server"
if [ -x "$binary" ] && "$binary" --version >/dev/null 2>&1; then
  echo "$binary"
  exit 0
fi

work="$root/apt"
mkdir -p "$work/lists/partial" "$work/archives/partial" "$work/debs"
echo "deb http://deb.debian.org/debian bookworm-backports main" >"$work/sources.list"
apt_opts=(
  -o "Dir::Etc::sourcelist=$work/sources.list"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work"
  -o "Dir::Cache::archives=$work/archives"
  -o "APT::Get::List-Cleanup=0"
  -o "Debug::NoLocking=1"
)
apt-get "${apt_opts[@]}" update -qq >&2
# valkey-server's own binaries live in valkey-tools (valkey-server is the service wrapper that links to them).
(cd "$work/debs" && apt-get "${apt_opts[@]}" download -t bookworm-backports valkey-tools valkey-server >&2)
for deb in "$work/debs"/*.deb; do dpkg -x "$deb" "$root"; done
"$binary" --version >&2
echo "$binary"
