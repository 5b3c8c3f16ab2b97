#!/usr/bin/env bash
# Single-file executables of observal.
#   ./compile.sh [TARGET...]             deno compile per target -> dist/observal-<target>[.exe]
#   COMPILE_VERIFY=1 ./compile.sh [...]  offline packaging check: the npm @deno/<platform> binaries
#                                        stand in for denort; outputs in dist/verify/ are NOT shippable
#   ./compile.sh --sea                   Node single-executable fallback (linux x64, runs on Node)
set -euo pipefail
cd "$(dirname "$0")"
BIN=./node_modules/.bin
DENO=${DENO:-$BIN/deno}
NAME=observal
ALL=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-msvc)
# Workers re-execute the binary itself and harnesses are spawned by name, so run stays open;
# network reaches registries and agents the user configured.
PERMS=(--no-prompt --allow-read --allow-write --allow-env --allow-run --allow-net --allow-sys)
DENO_VER=$("$DENO" --version | awk 'NR==1{print $2}')

mkdir -p dist/bundle
# One esbuild bundle (dependencies inlined) keeps node_modules out of the binary.
"$BIN/esbuild" main.ts --bundle --platform=node --format=esm --target=node22 \
  --outfile=dist/bundle/$NAME.mjs --log-level=warning

if [[ ${1:-} == --sea ]]; then
  "$BIN/esbuild" main.ts --bundle --platform=node --format=cjs --target=node24 \
    --define:import.meta.main=true --outfile=dist/bundle/$NAME.cjs --log-level=warning
  printf '{"main":"dist/bundle/%s.cjs","output":"dist/bundle/sea.blob","disableExperimentalSEAWarning":true,"useCodeCache":false,"useSnapshot":false}\n' "$NAME" > dist/bundle/sea.json
  "$BIN/node" --experimental-sea-config dist/bundle/sea.json
  cp --dereference "$BIN/node" dist/$NAME-node-sea && chmod u+w dist/$NAME-node-sea
  "$BIN/postject" dist/$NAME-node-sea NODE_SEA_BLOB dist/bundle/sea.blob \
    --sentinel-fuse NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2 2>/dev/null
  echo "built dist/$NAME-node-sea"
  exit 0
fi

standin() { # npm package holding the real deno binary for a target (same version as $DENO)
  case $1 in
    x86_64-unknown-linux-gnu) echo linux-x64-glibc ;; aarch64-unknown-linux-gnu) echo linux-arm64-glibc ;;
    x86_64-apple-darwin) echo darwin-x64 ;; aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-msvc) echo win32-x64 ;; *) return 1 ;;
  esac
}

status=0
for t in "${@:-${ALL[@]}}"; do
  ext=""; [[ $t == *windows* ]] && ext=.exe
  if [[ -n ${COMPILE_VERIFY:-} ]]; then
    pkg=$(standin "$t") || { echo "unknown target $t" >&2; status=2; continue; }
    dir=tmp/standin/$pkg
    if [[ ! -d $dir/package ]]; then
      mkdir -p "$dir" && (cd "$dir" && npm pack --silent "@deno/$pkg@$DENO_VER" >/dev/null && tar xzf ./*.tgz)
    fi
    out=dist/verify/$NAME-$t$ext; mkdir -p dist/verify
    DENORT_BIN=$(ls "$dir"/package/deno*) "$DENO" compile -q --no-config "${PERMS[@]}" --target "$t" -o "$out" dist/bundle/$NAME.mjs
    if grep -aq '"entrypoint_key":"'$NAME'.mjs"' "$out" && grep -aq d3n0l4nd "$out"; then
      echo "verify ok  $t  $(du -h "$out" | cut -f1)"
    else
      echo "verify FAIL $t"; status=1
    fi
  else
    if ! "$DENO" compile -q --no-config "${PERMS[@]}" --target "$t" -o "dist/$NAME-$t$ext" dist/bundle/$NAME.mjs; then
      echo "compile FAILED for $t: deno compile needs denort $DENO_VER for $t (downloaded by deno), or a copy at" >&2
      echo "  \$DENO_DIR/dl/release/v$DENO_VER/denort-$t.zip (default DENO_DIR: ~/.cache/deno)" >&2
      status=3
    fi
  fi
done
exit $status
