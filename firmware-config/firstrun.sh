#!/bin/bash
# clawbox first boot for Raspberry Pi OS Bookworm (no cloud-init): the kernel runs this
# once through `systemd.run=` in cmdline.txt, as Raspberry Pi Imager does, then it removes
# itself, its settings and the cmdline entry, and the Pi reboots (first of two reboots:
# the second boot installs clawbox). Settings come from clawbox/firstboot.env (written by
# scripts/prepare-sd.sh, shell-quoted), never pasted into this code.
#
# Guarantees: every setting is validated before anything changes; when one is missing or
# wrong, nothing is changed, the reason goes to clawbox/FIRSTBOOT-FAILED.txt on the boot
# partition, and the cmdline entry is still removed so the Pi boots normally instead of
# looping. The Wi-Fi password never reaches the card: firstboot.env holds the 64-hex PSK.
# CLAWBOX_FIRSTRUN_ROOT (tests only) prefixes every path.
set +e
R=${CLAWBOX_FIRSTRUN_ROOT:-}
if [ -f "$R/boot/firmware/cmdline.txt" ]; then boot=$R/boot/firmware; else boot=$R/boot; fi
log=$R/var/log/clawbox-firstrun.log
mkdir -p "$(dirname "$log")"
say() { echo "clawbox firstrun: $*" >>"$log"; }

remove_cmdline_entry() {
  local line
  line=$(head -n 1 "$boot/cmdline.txt" | tr -d '\r')
  line=${line// systemd.run_success_action=reboot/}
  line=${line// systemd.unit=kernel-command-line.target/}
  line=$(printf '%s\n' "$line" | sed 's| systemd\.run=[^ ]*||g')
  printf '%s\n' "$line" >"$boot/cmdline.txt.clawbox" && mv "$boot/cmdline.txt.clawbox" "$boot/cmdline.txt"
}

give_up() {
  say "not configured: $*"
  printf 'clawbox first boot changed nothing: %s\nFix the card with scripts/prepare-sd.sh and boot again.\n' "$*" \
    >"$boot/clawbox/FIRSTBOOT-FAILED.txt" 2>/dev/null
  remove_cmdline_entry
  rm -f "$boot/firstrun.sh"
  exit 0
}

env_file=$boot/clawbox/firstboot.env
[ -f "$env_file" ] || { mkdir -p "$boot/clawbox"; give_up "$env_file is missing"; }
# shellcheck source=/dev/null
. "$env_file"
[[ ${CLAWBOX_HOSTNAME:-} =~ ^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$ ]] || give_up "CLAWBOX_HOSTNAME is missing or invalid"
[[ ${CLAWBOX_USER:-} =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || give_up "CLAWBOX_USER is missing or invalid"
case $CLAWBOX_USER in root | clawbox | daemon | bin | sys | nobody | systemd-* | _*) give_up "CLAWBOX_USER $CLAWBOX_USER is a system account" ;; esac
[ -n "${CLAWBOX_SSH_KEY:-}" ] || give_up "CLAWBOX_SSH_KEY is missing"
[[ ${CLAWBOX_TIMEZONE:-} =~ ^[A-Za-z0-9_+/-]+$ ]] || give_up "CLAWBOX_TIMEZONE is missing or invalid"
if [ -n "${CLAWBOX_WIFI_SSID:-}" ]; then
  [[ ${CLAWBOX_WIFI_PSK:-} =~ ^[0-9a-f]{64}$ ]] || give_up "CLAWBOX_WIFI_PSK must be the 64-hex WPA key"
  [[ ${CLAWBOX_WIFI_COUNTRY:-} =~ ^[A-Z]{2}$ ]] || give_up "CLAWBOX_WIFI_COUNTRY is missing or invalid"
fi
user=$CLAWBOX_USER

# sudoers first, checked by visudo: a broken file would lock sudo for everyone.
sudoers=$R/etc/sudoers.d/010_clawbox-admin
printf '%s ALL=(ALL) NOPASSWD:ALL\n' "$user" >"$sudoers.tmp"
chmod 0440 "$sudoers.tmp"
if command -v visudo >/dev/null && ! visudo -cf "$sudoers.tmp" >>"$log" 2>&1; then
  rm -f "$sudoers.tmp"
  give_up "visudo rejected the sudoers line for $user"
fi

hostnamectl set-hostname "$CLAWBOX_HOSTNAME" 2>/dev/null || echo "$CLAWBOX_HOSTNAME" >"$R/etc/hostname"
if [ -f "$R/etc/hosts" ]; then
  sed "s/^127\.0\.1\.1.*/127.0.1.1\t$CLAWBOX_HOSTNAME/" "$R/etc/hosts" >"$R/etc/hosts.clawbox" &&
    mv "$R/etc/hosts.clawbox" "$R/etc/hosts"
fi

if ! id "$user" >/dev/null 2>&1; then
  if [ -x "$R/usr/lib/userconf-pi/userconf" ]; then
    # Raspberry Pi's own rename of the first user (also fixes its sudoers and autologin); "!" locks the password.
    "$R/usr/lib/userconf-pi/userconf" "$user" '!' >>"$log" 2>&1 || say "userconf $user failed"
  elif id pi >/dev/null 2>&1; then
    usermod -l "$user" pi && usermod -m -d "/home/$user" "$user" && groupmod -n "$user" pi
  else
    useradd -m -s /bin/bash -G adm,sudo,video,plugdev,netdev "$user"
  fi
fi
passwd -l "$user" >>"$log" 2>&1
mv "$sudoers.tmp" "$sudoers"
mkdir -p "$R/home/$user/.ssh"
printf '%s\n' "$CLAWBOX_SSH_KEY" >"$R/home/$user/.ssh/authorized_keys"
chmod 0700 "$R/home/$user/.ssh"
chmod 0600 "$R/home/$user/.ssh/authorized_keys"
chown -R "$user:$user" "$R/home/$user/.ssh"
systemctl disable userconfig.service 2>/dev/null
systemctl enable getty@tty1.service 2>/dev/null
if [ -f "$R/etc/ssh/sshd_config" ]; then
  sed 's/^#\?PasswordAuthentication.*/PasswordAuthentication no/' "$R/etc/ssh/sshd_config" >"$R/etc/ssh/sshd_config.clawbox" &&
    mv "$R/etc/ssh/sshd_config.clawbox" "$R/etc/ssh/sshd_config"
fi
systemctl enable ssh 2>/dev/null

if [ -n "${CLAWBOX_WIFI_SSID:-}" ]; then
  raspi-config nonint do_wifi_country "$CLAWBOX_WIFI_COUNTRY" >>"$log" 2>&1 ||
    say "raspi-config do_wifi_country $CLAWBOX_WIFI_COUNTRY failed (exit $?); Wi-Fi may stay blocked"
  # NetworkManager keyfile: the SSID as a list of byte values and the PSK as 64 hex digits
  # need no escaping, whatever characters the network name and password hold.
  ssid_bytes=$(printf '%s' "$CLAWBOX_WIFI_SSID" | od -An -tu1 -v | tr -s ' \n' ';;' | sed 's/^;//')
  conn=$R/etc/NetworkManager/system-connections/clawbox-wifi.nmconnection
  mkdir -p "$(dirname "$conn")"
  (
    umask 077
    printf '[connection]\nid=clawbox-wifi\ntype=wifi\nautoconnect=true\n\n'
    printf '[wifi]\nmode=infrastructure\nssid=%s\n\n' "$ssid_bytes"
    printf '[wifi-security]\nkey-mgmt=wpa-psk\npsk=%s\n\n' "$CLAWBOX_WIFI_PSK"
    printf '[ipv4]\nmethod=auto\n\n[ipv6]\nmethod=auto\n'
  ) >"$conn"
  chmod 0600 "$conn"
  # Recent images ship Wi-Fi disabled in NetworkManager's state and soft-blocked by rfkill.
  state=$R/var/lib/NetworkManager/NetworkManager.state
  mkdir -p "$(dirname "$state")"
  if [ -f "$state" ] && grep -q '^WirelessEnabled=' "$state"; then
    sed 's/^WirelessEnabled=.*/WirelessEnabled=true/' "$state" >"$state.clawbox" && mv "$state.clawbox" "$state"
  elif [ -f "$state" ] && grep -q '^\[main\]' "$state"; then
    sed 's/^\[main\]$/[main]\nWirelessEnabled=true/' "$state" >"$state.clawbox" && mv "$state.clawbox" "$state"
  else
    printf '[main]\nNetworkingEnabled=true\nWirelessEnabled=true\n' >>"$state"
  fi
  for file in "$R"/var/lib/systemd/rfkill/*:wlan; do
    [ -e "$file" ] && echo 0 >"$file"
  done
  rfkill unblock wifi 2>/dev/null
fi

ln -sf "/usr/share/zoneinfo/$CLAWBOX_TIMEZONE" "$R/etc/localtime"
echo "$CLAWBOX_TIMEZONE" >"$R/etc/timezone"
if [ -n "${CLAWBOX_LOCALE:-}" ]; then
  raspi-config nonint do_change_locale "$CLAWBOX_LOCALE" >>"$log" 2>&1 ||
    say "raspi-config do_change_locale $CLAWBOX_LOCALE failed (exit $?)"
fi

# Arm the hardware watchdog: systemd pets it and the board resets when the system hangs.
# 15 s is the Pi driver's maximum (a larger value is refused and leaves it off).
mkdir -p "$R/etc/systemd/system.conf.d"
printf '[Manager]\nRuntimeWatchdogSec=15\nRebootWatchdogSec=2min\n' >"$R/etc/systemd/system.conf.d/clawbox-watchdog.conf"

# clawbox itself installs on the next (normal) boot, when systemd and dpkg can run.
firmware=${boot#"$R"}
mkdir -p "$R/etc/systemd/system"
cat >"$R/etc/systemd/system/clawbox-firstboot.service" <<UNIT
[Unit]
Description=Install clawbox from the boot partition (first boot)
After=local-fs.target network.target
ConditionPathExists=$firmware/clawbox/install.sh
[Service]
Type=oneshot
ExecStart=/bin/sh $firmware/clawbox/install.sh
ExecStartPost=/bin/systemctl disable clawbox-firstboot.service
[Install]
WantedBy=multi-user.target
UNIT
systemctl enable clawbox-firstboot.service

rm -f "$boot/firstrun.sh" "$env_file"
remove_cmdline_entry
say "done"
exit 0
