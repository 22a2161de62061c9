#!/usr/bin/env bash
# Packs dist/clawbox-linux-<arch> and its parts into the release tarball
# dist/clawbox-<version>-linux-<arch>.tar.gz. Unpacked anywhere, `./clawbox` finds lib/
# beside itself (tarball layout in docs/PACKAGING.md).
#   scripts/package-tarball.sh <version> <x64|arm64>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$1 arch=$2
dist=$root/dist
name=clawbox-$version-linux-$arch
stage=$root/build/stage/$name
[ -x "$dist/clawbox-linux-$arch" ] || { echo "package-tarball: build dist/clawbox-linux-$arch first" >&2; exit 1; }
rm -rf "$stage" && mkdir -p "$stage/systemd"
cp "$dist/clawbox-linux-$arch" "$stage/clawbox"
cp -r "$dist/lib/linux-$arch" "$stage/lib"
cp -r "$dist/skills" "$dist/docs" "$dist/models" "$stage/"
cp "$root/systemd/clawbox.service" "$root/systemd/clawbox.socket" "$stage/systemd/"
cp "$root/systemd/clawbox.json" "$stage/clawbox.json.example"
[ -f "$root/README.md" ] && cp "$root/README.md" "$stage/"
tar -C "$(dirname "$stage")" --owner=0 --group=0 -czf "$dist/$name.tar.gz" "$name"
echo "package-tarball: dist/$name.tar.gz ($(du -h "$dist/$name.tar.gz" | cut -f1))"
