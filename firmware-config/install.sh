#!/bin/sh
# Runs once at first boot (from cloud-init runcmd or firstrun.sh): installs the clawbox
# .deb copied to the boot partition, applies a config placed beside it, and starts the
# service. Safe to run again. Log: /var/log/clawbox-firstboot.log
set -u
here=$(dirname "$0")
exec >>/var/log/clawbox-firstboot.log 2>&1
echo "== clawbox first boot $(date -Is)"
deb=$(ls "$here"/clawbox_*_arm64.deb 2>/dev/null | sort | tail -n 1)
if [ -z "$deb" ]; then
  echo "no clawbox_*_arm64.deb in $here"; exit 1
fi
dpkg -i "$deb" || { echo "dpkg -i $deb failed"; exit 1; }
if [ -f "$here/clawbox.json" ]; then
  install -o root -g clawbox -m 0640 "$here/clawbox.json" /etc/clawbox/clawbox.json
  # The copy on the FAT boot partition is world-readable and may hold tokens.
  rm -f "$here/clawbox.json"
fi
systemctl enable clawbox.service
systemctl restart --no-block clawbox.service
echo "clawbox installed: $(clawbox --version)"
