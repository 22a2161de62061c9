#!/bin/sh
# Runs once at first boot (from cloud-init runcmd or firstrun.sh): installs the clawbox
# .deb copied to the boot partition, applies a config placed beside it, and starts the
# service. Safe to run again. Log: /var/log/clawbox-firstboot.log
set -u
here=$(dirname "$0")
exec >>"${CLAWBOX_FIRSTBOOT_LOG:-/var/log/clawbox-firstboot.log}" 2>&1
echo "== clawbox first boot $(date -Is)"
deb=$(ls "$here"/clawbox_*_arm64.deb 2>/dev/null | sort | tail -n 1)
if [ -z "$deb" ]; then
  echo "no clawbox_*_arm64.deb in $here"; exit 1
fi
# On first boot apt's daily jobs or unattended-upgrades may hold the dpkg lock: wait for
# it (up to 10 minutes) instead of failing.
tries=0
until out=$(dpkg -i "$deb" 2>&1); do
  echo "$out"
  case $out in
    *"lock"*) ;;
    *) echo "dpkg -i $deb failed"; exit 1 ;;
  esac
  tries=$((tries + 1))
  [ "$tries" -lt 60 ] || { echo "dpkg is still locked after 10 minutes"; exit 1; }
  echo "dpkg is busy (another install is running); retrying in 10 s"
  sleep "${CLAWBOX_DPKG_RETRY_SECONDS:-10}"
done
echo "$out"
if [ -f "$here/clawbox.json" ]; then
  install -o root -g clawbox -m 0660 "$here/clawbox.json" /etc/clawbox/clawbox.json
  # The copy on the FAT boot partition is world-readable and may hold tokens.
  rm -f "$here/clawbox.json"
fi
# The console's login secret from prepare-sd.sh --console-secret: readable by the
# service's user only; the copy on the FAT boot partition is readable by everyone.
if [ -f "$here/console-secret" ]; then
  install -d -o clawbox -g clawbox -m 0750 /var/lib/clawbox
  install -o clawbox -g clawbox -m 0600 "$here/console-secret" /var/lib/clawbox/console-secret
  rm -f "$here/console-secret"
fi
systemctl enable clawbox.service
systemctl restart --no-block clawbox.service
# Optional (prepare-sd.sh --pull-model): once the network is up, pull the chat model
# recommended for this board; it becomes the local model and the running service picks
# it up, so the box can chat with no SSH. Retries every minute until it succeeds.
if [ -f "$here/pull-model" ]; then
  cat >/etc/systemd/system/clawbox-pull-model.service <<'UNIT'
[Unit]
Description=Pull the recommended clawbox chat model (first boot, once the network is up)
Wants=network-online.target
After=network-online.target clawbox.service
[Service]
Type=oneshot
User=clawbox
Group=clawbox
Environment=CLAWBOX_HOME=/var/lib/clawbox
Environment=CLAWBOX_CONFIG=/etc/clawbox/clawbox.json
ExecStart=/usr/bin/clawbox models pull --recommended
ExecStartPost=+/bin/systemctl disable clawbox-pull-model.service
Restart=on-failure
RestartSec=60
[Install]
WantedBy=multi-user.target
UNIT
  systemctl daemon-reload
  systemctl enable clawbox-pull-model.service
  systemctl start --no-block clawbox-pull-model.service
  rm -f "$here/pull-model"
fi
echo "clawbox installed: $(clawbox --version)"
