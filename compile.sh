#!/usr/bin/env bash
# Single-file executables of observal.
#   ./compile.sh [TARGET...]             deno compile per target -> dist/observal-<target>[.exe]
#                                        (deno downloads its runtime, denort, for each target)
#   COMPILE_VERIFY=1 ./compile.sh [...]  offline packaging check: the npm @deno/<platform> binaries
#                                        stand in for denort (cached in tmp/standin/); outputs in
#                                        dist/verify/ are NOT shippable
#   ./compile.sh --sea                   Node single executable (linux x64, runs on Node), built
#                                        without any download -> dist/observal-node-sea
#   ./compile.sh --bundle DIR            only the bundle a binary embeds -> DIR/observal.mjs and
#                                        DIR/chunks/ (run it with deno run --no-config, as the
#                                        binary runs it)
set -euo pipefail
# --bundle DIR is where the caller stands, not in the repository this script moves to.
if [[ ${1:-} == --bundle && -n ${2:-} && ${2:-} != /* ]]; then set -- "$1" "$PWD/$2"; fi
cd "$(dirname "$0")"
# Errors are for people: no Rust backtrace after deno's own message.
export RUST_BACKTRACE=0
BIN=./node_modules/.bin
DENO=${DENO:-$BIN/deno}
NAME=observal
ALL=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc)
# Workers re-execute the binary itself and harnesses are spawned by name, so run stays open;
# network reaches registries and agents the user configured. A compiled binary cannot narrow
# its permissions per task (they are fixed here), so its workers are not fenced.
PERMS=(--no-prompt --allow-read --allow-write --allow-env --allow-run --allow-net --allow-sys)
# `registry serve` and `delegate mcp` run for days: with V8's default young generation their
# memory grows half again over a soak (bench/soak.ts), with 1 MiB it stays flat, and short
# commands are no slower (measured: `--version`, `delegate list`). A binary reads V8 flags
# only from here.
V8=(--v8-flags=--max-semi-space-size=1)
DENO_VER=$("$DENO" --version | awk 'NR==1{print $2}')

# The binary embeds an esbuild bundle (dependencies inlined, so node_modules stays out of it)
# split at every dynamic import, as the npm package is: a command loads its own chunks and
# no others. As one file, every start loaded every command (`--version` took 96 ms instead
# of 23, `delegate list` 91 instead of 66).
# Dependencies shipped as CommonJS (the MCP SDK's cross-spawn) require Node's built-ins,
# and an ES module has no `require`: each file gets one from scripts/require_banner.js
# (shared with the npm build), which loads a built-in only when called. yaml goes in as its
# ES module build, which lib/harness/_yaml.ts imports.
split_bundle() { # DIR
  "$BIN/esbuild" main.ts --bundle --platform=node --format=esm --target=node22 --splitting \
    --outdir="$1" --entry-names="$NAME" --chunk-names='chunks/[name]-[hash]' \
    --out-extension:.js=.mjs --log-level=warning \
    --banner:js="$(cat scripts/require_banner.js)"
}
if [[ ${1:-} == --bundle ]]; then
  [[ -n ${2:-} ]] || { echo "usage: ./compile.sh --bundle DIR" >&2; exit 2; }
  # DIR is replaced, so it must be empty, missing or an earlier bundle: never a folder of
  # someone's files.
  if [[ -e $2 && ! ( -d $2 && ( -f $2/$NAME.mjs || -z $(ls -A "$2") ) ) ]]; then
    echo "compile.sh: $2 exists and is not a bundle; give a new or empty folder" >&2
    exit 2
  fi
  rm -rf "$2" && split_bundle "$2"
  exit 0
fi

mkdir -p dist/bundle
if [[ ${1:-} == --sea ]]; then
  # A Node single executable holds one script, so this bundle is one CommonJS file. esbuild
  # writes a temporary name, then it is renamed: a build running at the same time never
  # reads a half-written bundle.
  "$BIN/esbuild" main.ts --bundle --platform=node --format=cjs --target=node24 \
    --define:import.meta.main=true --outfile="dist/bundle/$NAME.cjs.$$.tmp" --log-level=warning
  mv -f "dist/bundle/$NAME.cjs.$$.tmp" "dist/bundle/$NAME.cjs"
  printf '{"main":"dist/bundle/%s.cjs","output":"dist/bundle/sea.blob","disableExperimentalSEAWarning":true,"useCodeCache":false,"useSnapshot":false}\n' "$NAME" > dist/bundle/sea.json
  "$BIN/node" --experimental-sea-config dist/bundle/sea.json
  cp --dereference "$BIN/node" dist/$NAME-node-sea && chmod u+w dist/$NAME-node-sea
  "$BIN/postject" dist/$NAME-node-sea NODE_SEA_BLOB dist/bundle/sea.blob \
    --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 2>/dev/null
  echo "built dist/$NAME-node-sea"
  exit 0
fi

# Whether the binary embeds every chunk of the bundle (most are loaded by dynamic imports):
# each chunk's longest line must be in it (a file name alone also appears in the imports).
all_chunks_in() { # BINARY
  local chunk line
  for chunk in "$bundle"/chunks/*.mjs; do
    line=$(awk '{ if (length($0) > length(l)) l = $0 } END { print substr(l, 1, 200) }' "$chunk")
    grep -aqF -- "$line" "$1" || { echo "missing from $1: $chunk" >&2; return 1; }
  done
}

standin() { # npm package holding the real deno binary for a target (same version as $DENO)
  case $1 in
    x86_64-unknown-linux-gnu) echo linux-x64-glibc ;; aarch64-unknown-linux-gnu) echo linux-arm64-glibc ;;
    x86_64-apple-darwin) echo darwin-x64 ;; aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-msvc) echo win32-x64 ;; *) return 1 ;;
  esac
}

# Downloads (once) the @deno/<platform> package for a target into tmp/standin/; prints the
# path of its deno binary.
fetch_standin() {
  local pkg=$1 dir=tmp/standin/$1
  if [[ ! -f $dir/.ready ]]; then
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "@deno/$pkg@$DENO_VER" >/dev/null && tar xzf ./*.tgz && rm -f ./*.tgz) ||
      return 1
    touch "$dir/.ready"
  fi
  ls "$dir"/package/deno*
}

# Each build compiles its own copy of the bundle, so builds running at the same time never
# read each other's half-written chunks.
bundle=$(mktemp -d dist/bundle/deno.XXXXXX)
trap 'rm -rf "$bundle"' EXIT
split_bundle "$bundle"

status=0 no_runtime=0
for t in "${@:-${ALL[@]}}"; do
  ext=""; [[ $t == *windows* ]] && ext=.exe
  if [[ -n ${COMPILE_VERIFY:-} ]]; then
    pkg=$(standin "$t") || { echo "verify FAIL $t: unknown target (one of: ${ALL[*]})" >&2; status=2; continue; }
    if ! base=$(fetch_standin "$pkg"); then
      echo "verify FAIL $t: could not download @deno/$pkg@$DENO_VER from the npm registry" >&2
      status=1; continue
    fi
    out=dist/verify/$NAME-$t$ext; mkdir -p dist/verify
    if DENORT_BIN=$base "$DENO" compile -q --no-config "${PERMS[@]}" "${V8[@]}" --target "$t" -o "$out" "$bundle/$NAME.mjs" &&
      grep -aq '"entrypoint_key":"'$NAME'.mjs"' "$out" && grep -aq d3n0l4nd "$out" &&
      grep -aq '"v8_flags":\[[^]]*"--max-semi-space-size=1"\]' "$out" &&
      all_chunks_in "$out"; then
      echo "verify ok  $t  $(du -h "$out" | cut -f1)"
    else
      echo "verify FAIL $t" >&2; status=1
    fi
  else
    err=$(mktemp)
    if ! "$DENO" compile -q --no-config "${PERMS[@]}" "${V8[@]}" --target "$t" -o "dist/$NAME-$t$ext" "$bundle/$NAME.mjs" 2>"$err"; then
      cat "$err" >&2
      echo "compile FAILED for $t" >&2
      # "Setting up base binary" is the step that fetches (or finds) the runtime.
      if grep -q 'base binary\|denort' "$err"; then no_runtime=1; else status=1; fi
    fi
    rm -f "$err"
  fi
done
if ((no_runtime)); then # the runtime could not be had: say what works instead
  status=3
  cat >&2 <<MSG

deno compile needs Deno's runtime (denort $DENO_VER) for each target, which it downloads from
dl.deno.land; it could not get it. Either:
  - pre-seed it: \$DENO_DIR/dl/release/v$DENO_VER/denort-<target>.zip (default DENO_DIR: ~/.cache/deno);
  - ./compile.sh --sea builds dist/$NAME-node-sea, a runnable single file, with no download;
  - COMPILE_VERIFY=1 ./compile.sh checks every target's packaging offline (not shippable).
MSG
fi
exit $status
