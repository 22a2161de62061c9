#!/usr/bin/env bash
# Smoke test of the arm64 binary on an x86_64 machine under qemu-user: --version,
# doctor (from another directory), `run` answering /health, one chat turn on the tiny
# stories260K model, and a clean SIGTERM. Runs in a private user+mount namespace that
# registers an aarch64 binfmt handler (node-llama-cpp forks the binary to probe its
# backend) and shows an arm64 /proc/cpuinfo (onnxruntime reads it). Prints PASS/FAIL
# per check; exits non-zero when any check fails.
#   scripts/smoke-arm64.sh [--binary FILE] [--model FILE] [--port N]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
binary=$root/dist/clawbox-linux-arm64
model=$root/../shared/models/stories260K.gguf
port=18799
while [ $# -gt 0 ]; do
  case $1 in
    --binary) binary=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --port) port=$2; shift 2 ;;
    *) echo "smoke-arm64: unknown argument $1" >&2; exit 2 ;;
  esac
done

if [ "${SMOKE_INSIDE:-}" != 1 ]; then
  # Outside the namespace: tools, binary, then re-enter this script inside the namespace.
  need=()
  command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
  [ -e /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ] || need+=(libc6-arm64-cross)
  [ -e /usr/aarch64-linux-gnu/lib/libstdc++.so.6 ] || need+=(libstdc++6-arm64-cross)
  command -v curl >/dev/null || need+=(curl)
  if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "smoke-arm64: installing ${need[*]}"
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null ||
        { echo "FAIL tools: apt-get install ${need[*]}"; exit 1; }
    else
      echo "FAIL tools: missing ${need[*]} (apt-get install them as root)"; exit 1
    fi
  fi
  if [ ! -x "$binary" ]; then
    echo "smoke-arm64: $binary missing; building it"
    bash "$root/scripts/build.sh" --arch arm64 --no-package || { echo "FAIL build"; exit 1; }
  fi
  export SMOKE_INSIDE=1 SMOKE_BINARY=$binary SMOKE_MODEL=$model SMOKE_PORT=$port SMOKE_ROOT=$root
  exec unshare --user --map-root-user --mount bash "$0"
fi

# ---- inside the namespace ----
binary=$SMOKE_BINARY model=$SMOKE_MODEL port=$SMOKE_PORT root=$SMOKE_ROOT
work=$root/build/smoke-arm64
rm -rf "$work" && mkdir -p "$work/home"
failures=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || { echo "FAIL namespace: cannot mount binfmt_misc (kernel >= 6.7 needed)"; exit 1; }
printf '%s' ':qemu-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
  >/proc/sys/fs/binfmt_misc/register || { echo "FAIL namespace: cannot register the aarch64 binfmt handler"; exit 1; }
mount --bind "$root/scripts/smoke/cpuinfo-raspberry-pi-5" /proc/cpuinfo || { echo "FAIL namespace: cannot bind cpuinfo"; exit 1; }
export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu QEMU_CPU=cortex-a76
export CLAWBOX_HOME=$work/home ORT_DISABLE_TELEMETRY=1
unset CLAWBOX_CONFIG NOTIFY_SOCKET WATCHDOG_USEC

version=$(node -p 'require(process.argv[1]).version' "$root/package.json" 2>/dev/null ||
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$root/package.json" | head -n 1)
out=$(cd / && "$binary" --version 2>&1)
[ "$out" = "clawbox $version" ] && pass "--version ($out)" || fail "--version: got \"$out\""

if [ -f "$model" ]; then
  cat >"$work/home/clawbox.json" <<JSON
{ "models": { "providers": { "local": { "kind": "local", "path": "$model", "threads": 1, "maxTokens": 8, "contextSize": 2048, "temperature": 0, "toolCalling": "off" } } } }
JSON
else
  echo "smoke-arm64: $model missing: the chat check is skipped"
fi

(cd / && "$binary" doctor) >"$work/doctor.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "sqlite-vec" "$work/doctor.log" && ! grep -q "^fail" "$work/doctor.log"; then
  pass "doctor from / ($(tail -n 1 "$work/doctor.log"))"
else
  fail "doctor exit $rc:"; sed 's/^/    /' "$work/doctor.log"
fi

(cd / && exec "$binary" run --port "$port") >"$work/run.log" 2>&1 &
pid=$!
healthy=0
for _ in $(seq 1 240); do
  if curl -sf "http://127.0.0.1:$port/health" >"$work/health.json" 2>/dev/null; then healthy=1; break; fi
  kill -0 $pid 2>/dev/null || break
  sleep 0.5
done
if [ $healthy = 1 ] && grep -q '"status":"ok"' "$work/health.json"; then
  pass "run answers /health ($(head -c 120 "$work/health.json"))"
else
  fail "run /health:"; sed 's/^/    /' "$work/run.log"
fi

if [ $healthy = 1 ] && [ -f "$model" ]; then
  started=$(date +%s)
  curl -s --max-time 900 -X POST "http://127.0.0.1:$port/api/chat" -H 'content-type: application/json' \
    -d '{"message":"Once upon a time"}' >"$work/chat.json"
  took=$(($(date +%s) - started))
  reply=$(node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));if(r.message?.stopReason==="error"||!r.reply)process.exit(1);console.log(r.reply.slice(0,60).replace(/\n/g," "))' "$work/chat.json" 2>/dev/null)
  if [ $? -eq 0 ]; then pass "chat turn on $(basename "$model") in ${took}s: \"$reply\""; else
    fail "chat turn:"; head -c 600 "$work/chat.json" | sed 's/^/    /'; echo; tail -n 20 "$work/run.log" | sed 's/^/    /'
  fi
fi

if kill -0 $pid 2>/dev/null; then
  kill -TERM $pid
  for _ in $(seq 1 120); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
  if kill -0 $pid 2>/dev/null; then
    kill -KILL $pid; fail "SIGTERM: still running after 60 s"
  else
    wait $pid; rc=$?
    if [ $rc -eq 0 ] && grep -q "stopped" "$work/run.log"; then pass "SIGTERM: clean exit 0"; else
      fail "SIGTERM: exit $rc"; tail -n 5 "$work/run.log" | sed 's/^/    /'
    fi
  fi
else
  fail "run exited before SIGTERM"
fi

# ICU word segmentation inside the arm64 binary: a natural Chinese question finds its note.
mkdir -p "$work/home/workspace/memory"
printf '# 家人\n\n奶奶的生日是三月十五日，她喜欢茉莉花茶。\n' >"$work/home/workspace/memory/2025-04-01.md"
(cd / && "$binary" memory search "奶奶喜欢喝什么茶" --json) >"$work/memory.json" 2>"$work/memory.log"
if node -e 'const r=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));process.exit(r.results?.[0]?.path==="memory/2025-04-01.md"?0:1)' "$work/memory.json" 2>/dev/null; then
  pass "keyword memory search with ICU segmentation (奶奶喜欢喝什么茶 finds the note)"
else
  fail "keyword memory search:"; head -c 600 "$work/memory.json" | sed 's/^/    /'; sed 's/^/    /' "$work/memory.log"
fi

echo "smoke-arm64: $([ $failures -eq 0 ] && echo PASS || echo "FAIL ($failures)") — logs in ${work#"$root"/}"
[ $failures -eq 0 ]
