#!/usr/bin/env bash
# `npm run build`: compiles clawbox into one self-contained binary per architecture and
# lays out beside it what cannot be embedded (native libraries), then packages release
# artifacts. Offline apart from the npm registry (arm64-only packages, fetched once into
# build/cross and checked against package-lock.json). See docs/PACKAGING.md.
#
#   scripts/build.sh [--arch x64|arm64|all] [--no-package]
#
# Output (dist/):
#   clawbox-linux-<arch>                       the binary
#   lib/linux-<arch>/                          vec0.so + node_modules with native packages
#   skills/ docs/                              bundled skills and docs the agent can read
#   models/manifest.json                       the models `clawbox models pull` knows
#   clawbox-<version>-linux-<arch>.tar.gz      release tarball (binary + lib + unit + config)
#   clawbox_<version>_<amd64|arm64>.deb        Debian package
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

arches=(x64 arm64)
package=1
while [ $# -gt 0 ]; do
  case $1 in
    --arch) [ "${2:-all}" = all ] && arches=(x64 arm64) || arches=("$2"); shift 2 ;;
    --no-package) package=0; shift ;;
    *) echo "build.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

bun=$root/node_modules/bun/bin/bun.exe
[ -x "$bun" ] || { echo "build.sh: $bun missing; run npm ci" >&2; exit 1; }
version=$("$bun" -e 'console.log(require("./package.json").version)')
dist=$root/dist
cross=$root/build/cross
mkdir -p "$dist"

cross_package() { # prints the unpacked folder of an arm64-only package pinned in the lockfile
  "$bun" scripts/build-cross-packages.ts "$cross" "$1" | cut -f2
}

for arch in "${arches[@]}"; do
  echo "== clawbox $version linux-$arch"
  layout_args=()
  case $arch in
    x64) runtime=$bun ;;
    arm64)
      runtime=$(cross_package @oven/bun-linux-aarch64)/bin/bun
      layout_args+=(--vec0 "$(cross_package sqlite-vec-linux-arm64)/vec0.so")
      if [ ! -f node_modules/@node-llama-cpp/linux-arm64/package.json ]; then
        layout_args+=(--package "@node-llama-cpp/linux-arm64=$(cross_package @node-llama-cpp/linux-arm64)")
      fi
      ;;
    *) echo "build.sh: unknown arch $arch" >&2; exit 2 ;;
  esac
  binary=$dist/clawbox-linux-$arch
  # Native packages are not embedded: they load from lib/ (scripts/build-compile.ts).
  "$bun" scripts/build-compile.ts "$arch" "$binary" "$runtime"
  "$bun" scripts/build-native-layout.ts "$arch" "$dist/lib/linux-$arch" "${layout_args[@]}"
done

rm -rf "$dist/skills" "$dist/docs" "$dist/models"
mkdir -p "$dist/skills" "$dist/docs" "$dist/models"
[ -d skills ] && cp -r skills/. "$dist/skills/"
[ -d docs ] && cp -r docs/. "$dist/docs/"
# The model manifest: `clawbox models pull`, the console and the first-boot pull read it.
cp models/manifest.json "$dist/models/"

if [ "$package" = 1 ]; then
  for arch in "${arches[@]}"; do
    bash scripts/package-tarball.sh "$version" "$arch"
    bash scripts/package-deb.sh "$version" "$arch"
  done
fi
echo "== done: $(cd "$dist" && ls -d clawbox-* | tr '\n' ' ')"
