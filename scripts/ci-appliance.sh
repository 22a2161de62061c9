#!/usr/bin/env bash
# CI checks of the appliance packaging (issue 3), called by .ci/run: installs the tools
# it needs with apt-get, runs `npm run build`, then checks the x64 binary from another
# directory, the release tarball layout, the amd64 .deb (install, run, systemd-analyze
# verify, purge leaves nothing), the arm64 .deb contents and the arm64 smoke test under
# qemu, and that the compiled binary connects its channels and MQTT bridge. One PASS/FAIL
# line per check; exits non-zero when any check fails.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }
finish() { echo "ci-appliance: $passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

need=()
for tool in qemu-aarch64-static:qemu-user-static dpkg-deb:dpkg systemd-analyze:systemd curl:curl zstd:zstd; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
[ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || need+=(libc6-arm64-cross)
[ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || need+=(libstdc++6-arm64-cross)
if [ ${#need[@]} -gt 0 ]; then
  if { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >/tmp/clawbox-ci-apt.log 2>&1; then
    pass "tools installed (${need[*]})"
  else
    fail "apt-get install ${need[*]} (see /tmp/clawbox-ci-apt.log)"; finish
  fi
fi

version=$(node -p 'require("./package.json").version')
if npm run --silent build >/tmp/clawbox-ci-build.log 2>&1; then pass "npm run build"; else
  tail -n 30 /tmp/clawbox-ci-build.log; fail "npm run build (log: /tmp/clawbox-ci-build.log)"; finish
fi
for f in clawbox-linux-x64 clawbox-linux-arm64 "clawbox-$version-linux-x64.tar.gz" "clawbox-$version-linux-arm64.tar.gz" \
  "clawbox_${version}_amd64.deb" "clawbox_${version}_arm64.deb"; do
  check "artifact dist/$f" test -s "dist/$f"
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

doctor_ok() { # <binary> <home>: doctor from / finds sqlite-vec and reports no failure
  local out
  out=$(cd / && CLAWBOX_HOME=$2 CLAWBOX_CONFIG= "$1" doctor 2>&1) || { echo "$out"; return 1; }
  echo "$out" | grep -q "^ok *sqlite-vec" || { echo "$out"; return 1; }
}

check "x64 binary --version from /" sh -c "cd / && '$root/dist/clawbox-linux-x64' --version | grep -qx 'clawbox $version'"
check "x64 binary doctor from /" doctor_ok "$root/dist/clawbox-linux-x64" "$tmp/home-dist"
# The channels and the MQTT bridge load as lazy chunks of the compiled binary, where module
# interop differs from a source run: the binary itself must connect (mosquitto, the fakes).
channels_connect() {
  "$root/node_modules/bun/bin/bun.exe" scripts/bench/startup.ts --no-arm64 --runs 1 \
    --binary "$root/dist/clawbox-linux-x64" --mqtt --qq --wecom --json >/tmp/clawbox-ci-channels.log 2>&1 ||
    { tail -n 20 /tmp/clawbox-ci-channels.log; return 1; }
}
check "x64 binary connects to MQTT, the QQ gateway and the WeCom bot after READY" channels_connect

tar -xzf "dist/clawbox-$version-linux-x64.tar.gz" -C "$tmp"
check "tarball layout: clawbox + lib/vec0.so + lib/node_modules" test -x "$tmp/clawbox-$version-linux-x64/clawbox" -a \
  -f "$tmp/clawbox-$version-linux-x64/lib/vec0.so" -a -d "$tmp/clawbox-$version-linux-x64/lib/node_modules/node-llama-cpp"
check "tarball binary doctor from /" doctor_ok "$tmp/clawbox-$version-linux-x64/clawbox" "$tmp/home-tar"
check "tarball binary models list reads its manifest" sh -c \
  "cd / && CLAWBOX_HOME='$tmp/home-tar' '$tmp/clawbox-$version-linux-x64/clawbox' models list | grep -q qwen"

if dpkg -s clawbox >/dev/null 2>&1; then
  fail "amd64 .deb: clawbox is already installed on this machine; not touching it"
else
  if dpkg -i "dist/clawbox_${version}_amd64.deb" >/tmp/clawbox-ci-dpkg.log 2>&1; then
    pass "amd64 .deb installs with dpkg -i"
    check "installed clawbox --version" sh -c "cd / && clawbox --version | grep -qx 'clawbox $version'"
    check "installed clawbox doctor finds /usr/lib/clawbox/lib" doctor_ok /usr/bin/clawbox "$tmp/home-deb"
    check "system user clawbox and /var/lib/clawbox" sh -c 'id clawbox >/dev/null && [ "$(stat -c %U /var/lib/clawbox)" = clawbox ]'
    check "conffile /etc/clawbox/clawbox.json" sh -c 'dpkg-query -W -f="\${Conffiles}" clawbox | grep -q /etc/clawbox/clawbox.json'
    check "service config check as clawbox" su -s /bin/sh clawbox -c \
      'CLAWBOX_HOME=/var/lib/clawbox CLAWBOX_CONFIG=/etc/clawbox/clawbox.json clawbox config check >/dev/null'
    if systemd-analyze verify /usr/lib/systemd/system/clawbox.service /usr/lib/systemd/system/clawbox.socket \
      >/tmp/clawbox-ci-verify.log 2>&1 &&
      ! grep -q clawbox /tmp/clawbox-ci-verify.log; then pass "systemd-analyze verify clawbox.service clawbox.socket"; else
      cat /tmp/clawbox-ci-verify.log; fail "systemd-analyze verify clawbox.service clawbox.socket"
    fi
    if dpkg -P clawbox >>/tmp/clawbox-ci-dpkg.log 2>&1; then pass "dpkg -P clawbox"; else fail "dpkg -P clawbox"; fi
    left=$(ls -d /usr/bin/clawbox /usr/lib/clawbox /etc/clawbox /var/lib/clawbox \
      /usr/lib/systemd/system/clawbox.service /etc/systemd/system/multi-user.target.wants/clawbox.service \
      /usr/lib/systemd/system/clawbox.socket /etc/systemd/system/sockets.target.wants/clawbox.socket 2>/dev/null)
    getent passwd clawbox >/dev/null && left="$left user:clawbox"
    if [ -z "$left" ]; then pass "purge leaves nothing behind"; else fail "purge left: $left"; fi
  else
    cat /tmp/clawbox-ci-dpkg.log; fail "amd64 .deb installs with dpkg -i"
  fi
fi

dpkg-deb -c "dist/clawbox_${version}_arm64.deb" >"$tmp/arm64-deb.list" 2>&1
check "arm64 .deb is arm64 with /usr/bin/clawbox and lib" sh -c "
  dpkg-deb -f 'dist/clawbox_${version}_arm64.deb' Architecture | grep -qx arm64 &&
  grep -q ' ./usr/bin/clawbox\$' '$tmp/arm64-deb.list' &&
  grep -q ' ./usr/lib/clawbox/lib/vec0.so\$' '$tmp/arm64-deb.list'"

if bash scripts/smoke-arm64.sh 2>&1 | tee /tmp/clawbox-ci-smoke.log | sed 's/^/  /'; then
  pass "arm64 smoke test under qemu"; else fail "arm64 smoke test under qemu"
fi

echo "startup benchmark (informational):"
npm run --silent bench -- startup --json --runs 5 --no-arm64 2>&1 | sed 's/^/  /'
finish
