#!/bin/bash
# clawbox first boot for Raspberry Pi OS Bookworm (no cloud-init): the kernel runs this
# once through `systemd.run=` in cmdline.txt, as Raspberry Pi Imager does, then it removes
# itself, its settings and the cmdline entry. Settings come from clawbox/firstboot.env
# (written by scripts/prepare-sd.sh, shell-quoted), never pasted into this code.
set +e
boot=/boot/firmware
[ -f "$boot/clawbox/firstboot.env" ] || boot=/boot
# shellcheck source=/dev/null
. "$boot/clawbox/firstboot.env"

hostnamectl set-hostname "$CLAWBOX_HOSTNAME" 2>/dev/null || echo "$CLAWBOX_HOSTNAME" >/etc/hostname
sed -i "s/^127\.0\.1\.1.*/127.0.1.1\t$CLAWBOX_HOSTNAME/" /etc/hosts

user=$CLAWBOX_USER
if ! id "$user" >/dev/null 2>&1; then
  if id pi >/dev/null 2>&1; then
    usermod -l "$user" pi && usermod -m -d "/home/$user" "$user" && groupmod -n "$user" pi
  else
    useradd -m -s /bin/bash -G adm,sudo,video,plugdev,netdev "$user"
  fi
fi
passwd -l "$user"
install -d -o "$user" -g "$user" -m 0700 "/home/$user/.ssh"
printf '%s\n' "$CLAWBOX_SSH_KEY" >"/home/$user/.ssh/authorized_keys"
chown "$user:$user" "/home/$user/.ssh/authorized_keys"
chmod 0600 "/home/$user/.ssh/authorized_keys"
echo "$user ALL=(ALL) NOPASSWD:ALL" >/etc/sudoers.d/010_clawbox-admin
chmod 0440 /etc/sudoers.d/010_clawbox-admin
systemctl disable userconfig.service 2>/dev/null
systemctl enable getty@tty1.service 2>/dev/null
sed -i 's/^#\?PasswordAuthentication.*/PasswordAuthentication no/' /etc/ssh/sshd_config
systemctl enable ssh

if [ -n "$CLAWBOX_WIFI_SSID" ]; then
  raspi-config nonint do_wifi_country "$CLAWBOX_WIFI_COUNTRY" 2>/dev/null
  conn=/etc/NetworkManager/system-connections/clawbox-wifi.nmconnection
  {
    printf '[connection]\nid=clawbox-wifi\ntype=wifi\nautoconnect=true\n'
    printf '[wifi]\nmode=infrastructure\nssid=%s\n' "$CLAWBOX_WIFI_SSID"
    printf '[wifi-security]\nkey-mgmt=wpa-psk\npsk=%s\n' "$CLAWBOX_WIFI_PASSWORD"
    printf '[ipv4]\nmethod=auto\n[ipv6]\nmethod=auto\n'
  } >"$conn"
  chmod 0600 "$conn"
  rfkill unblock wifi 2>/dev/null
fi

ln -sf "/usr/share/zoneinfo/$CLAWBOX_TIMEZONE" /etc/localtime
echo "$CLAWBOX_TIMEZONE" >/etc/timezone

# clawbox itself installs on the next (normal) boot, when systemd and dpkg can run.
cat >/etc/systemd/system/clawbox-firstboot.service <<UNIT
[Unit]
Description=Install clawbox from the boot partition (first boot)
After=local-fs.target network.target
ConditionPathExists=$boot/clawbox/install.sh
[Service]
Type=oneshot
ExecStart=/bin/sh $boot/clawbox/install.sh
ExecStartPost=/bin/systemctl disable clawbox-firstboot.service
[Install]
WantedBy=multi-user.target
UNIT
systemctl enable clawbox-firstboot.service

rm -f "$boot/firstrun.sh" "$boot/clawbox/firstboot.env"
sed -i 's| systemd\.run=[^ ]*||; s| systemd\.run_success_action=[^ ]*||; s| systemd\.unit=kernel-command-line\.target||' "$boot/cmdline.txt"
exit 0
