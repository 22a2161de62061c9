#!/usr/bin/env bash
# Builds the Debian package dist/clawbox_<version>_<amd64|arm64>.deb with dpkg-deb:
#   /usr/bin/clawbox                       the binary
#   /usr/lib/clawbox/{lib,skills,docs,models} native parts, bundled skills, docs, model manifest
#   /usr/lib/systemd/system/clawbox.service, clawbox.socket (the port, held across restarts)
#   /etc/clawbox/clawbox.json              default config (conffile: local edits survive upgrades)
#   /var/lib/clawbox                       state, owned by the `clawbox` system user (postinst)
# Maintainer scripts live in systemd/debian/.
#   scripts/package-deb.sh <version> <x64|arm64>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
version=$1 arch=$2
case $arch in x64) debarch=amd64 ;; arm64) debarch=arm64 ;; *) echo "package-deb: unknown arch $arch" >&2; exit 2 ;; esac
dist=$root/dist
stage=$root/build/deb/$debarch
[ -x "$dist/clawbox-linux-$arch" ] || { echo "package-deb: build dist/clawbox-linux-$arch first" >&2; exit 1; }

rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/lib/clawbox" "$stage/usr/lib/systemd/system" \
  "$stage/etc/clawbox" "$stage/usr/share/doc/clawbox"
cp "$dist/clawbox-linux-$arch" "$stage/usr/bin/clawbox"
cp -r "$dist/lib/linux-$arch" "$stage/usr/lib/clawbox/lib"
cp -r "$dist/skills" "$dist/docs" "$dist/models" "$stage/usr/lib/clawbox/"
cp "$root/systemd/clawbox.service" "$root/systemd/clawbox.socket" "$stage/usr/lib/systemd/system/"
cp "$root/systemd/clawbox.json" "$stage/etc/clawbox/clawbox.json"
[ -f "$root/README.md" ] && cp "$root/README.md" "$stage/usr/share/doc/clawbox/"
cat > "$stage/usr/share/doc/clawbox/copyright" <<COPYRIGHT
clawbox $version — MIT License. Bundled third-party packages under
/usr/lib/clawbox/lib/node_modules keep their own LICENSE files.
COPYRIGHT
for script in postinst prerm postrm; do
  install -m 0755 "$root/systemd/debian/$script" "$stage/DEBIAN/$script"
done
echo /etc/clawbox/clawbox.json > "$stage/DEBIAN/conffiles"
chmod -R u+rwX,go+rX,go-w "$stage"
chmod 0640 "$stage/etc/clawbox/clawbox.json"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: clawbox
Version: $version
Architecture: $debarch
Maintainer: clawbox maintainers <clawbox@localhost>
Installed-Size: $size
Depends: libc6 (>= 2.31), libstdc++6, libgcc-s1, passwd
Section: misc
Priority: optional
Homepage: https://github.com/clawbox/clawbox
Description: home-assistant box runtime (local LLM, chat channels, MQTT)
 One compiled program running as a systemd service: local llama.cpp model,
 QQ/WeCom/MQTT channels, SQLite sessions and memory, a loopback HTTP API.
CONTROL
out=$dist/clawbox_${version}_$debarch.deb
dpkg-deb --root-owner-group -Zzstd -z9 --build "$stage" "$out" >/dev/null
echo "package-deb: ${out#"$root"/} ($(du -h "$out" | cut -f1))"
