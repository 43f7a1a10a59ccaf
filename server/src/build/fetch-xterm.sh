#!/bin/sh
# Puts xterm.js (npm package @xterm/xterm, MIT licence) into the console's vendor directory at build time: fetched once
# with `npm pack` into a cache, checked against the integrity pinned here, then unpacked into OUT. Without npm or the
# registry the build goes on without it and the console's terminal says that this build lacks it.
set -eu
out="$1"
version=6.0.0
integrity=sha512-TQwDdQGtwwDt+2cgKDLn0IRaSxYu1tSUjgKarSDkUM0ZNiSRXFpjxEsvc/Zgc5kq5omJ+V0a8/kIM2WD3sMOYg==
cache="${PADDOCK_NPM_CACHE:-${HOME:-/tmp}/.cache/paddock/npm}"
tgz="$cache/xterm-xterm-$version.tgz"
if [ ! -f "$tgz" ]; then
  if ! command -v npm >/dev/null; then
    echo "warning: no npm on the PATH: the console's terminal (xterm.js) is left out of this build" >&2
    exit 0
  fi
  mkdir -p "$cache"
  if ! (cd "$cache" && npm pack "@xterm/xterm@$version" --silent >/dev/null 2>&1); then
    echo "warning: could not fetch @xterm/xterm@$version from the npm registry: the console's terminal is left out of this build" >&2
    exit 0
  fi
fi
actual="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
if [ "$actual" != "$integrity" ]; then
  rm -f "$tgz"
  echo "error: $tgz does not match the integrity pinned in $0" >&2
  exit 1
fi
mkdir -p "$out"
# the ES module under a .js name: served as JavaScript whatever the server's MIME table says of .mjs
tar -xzOf "$tgz" package/lib/xterm.mjs > "$out/xterm.esm.js"
tar -xzf "$tgz" -C "$out" --strip-components=2 package/css/xterm.css
tar -xzf "$tgz" -C "$out" --strip-components=1 package/LICENSE
