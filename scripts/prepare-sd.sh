#!/usr/bin/env bash
# Writes clawbox's first-boot configuration onto the mounted boot partition of a freshly
# flashed Raspberry Pi OS (64-bit) card: the arm64 .deb and install.sh in clawbox/,
# cloud-init user-data/network-config/meta-data (Trixie) or firstrun.sh + cmdline.txt
# (Bookworm), and the config.txt fragment. Run again to change settings. docs/FLASHING.md.
set -euo pipefail
shopt -u patsub_replacement 2>/dev/null || true
root=$(cd "$(dirname "$0")/.." && pwd)
fw=$root/firmware-config

usage() {
  cat <<USAGE
Usage: scripts/prepare-sd.sh --boot DIR --ssh-key FILE [options]
  --boot DIR            mounted boot partition (e.g. /media/\$USER/bootfs)
  --ssh-key FILE        public key allowed to log in (e.g. ~/.ssh/id_ed25519.pub)
  --deb FILE            arm64 package (default: newest dist/clawbox_*_arm64.deb)
  --hostname NAME       default clawbox
  --user NAME           admin login, default clawbox-admin
  --timezone TZ         default UTC (e.g. Asia/Shanghai)
  --locale LOCALE       default en_US.UTF-8
  --wifi-ssid SSID      omit for Ethernet only
  --wifi-password PSK   (or env CLAWBOX_WIFI_PASSWORD, to keep it out of shell history)
  --wifi-country CC     two letters (required with --wifi-ssid), e.g. CN, DE, US
  --config FILE         clawbox.json to install as /etc/clawbox/clawbox.json
  --console-secret S    the web console's login secret, 16+ characters without spaces
                        (or env CLAWBOX_CONSOLE_SECRET); default: the box makes one
  --pull-model          at first boot, once online, pull the chat model recommended for the board
  --os auto|trixie|bookworm   first-boot mechanism (auto: cloud-init when the card has meta-data)
USAGE
}

fail() { echo "prepare-sd: $*" >&2; exit 2; }

# The WPA key as 64 hex digits (PBKDF2-HMAC-SHA1 of the passphrase, salted with the SSID,
# 4096 rounds; IEEE 802.11i), so the card never holds the passphrase itself.
wpa_psk() {
  local ssid=$1 pass=$2
  if [[ $pass =~ ^[0-9a-fA-F]{64}$ ]]; then printf '%s\n' "$pass" | tr 'A-F' 'a-f'; return 0; fi
  if [ ${#pass} -lt 8 ] || [ ${#pass} -gt 63 ]; then
    fail "--wifi-password: WPA needs 8 to 63 characters (or the 64-hex key)"
  fi
  if command -v python3 >/dev/null; then
    python3 -c 'import hashlib, sys; print(hashlib.pbkdf2_hmac("sha1", sys.argv[1].encode(), sys.argv[2].encode(), 4096, 32).hex())' "$pass" "$ssid"
  elif openssl kdf -help >/dev/null 2>&1; then
    openssl kdf -keylen 32 -kdfopt digest:SHA1 -kdfopt "pass:$pass" -kdfopt "salt:$ssid" -kdfopt iter:4096 PBKDF2 | tr -d ':\n' | tr 'A-F' 'a-f'
    echo
  else
    fail "computing the WPA key needs python3 or OpenSSL 3 (openssl kdf)"
  fi
}

# Writes stdin to FILE through a temp file (no sed -i: it differs between GNU and macOS).
replace_file() { cat >"$1.clawbox-tmp" && mv "$1.clawbox-tmp" "$1"; }
# cmdline.txt without clawbox's first-boot entries (and without CR line ends).
clean_cmdline() {
  head -n 1 "$1" | tr -d '\r' |
    sed 's| systemd\.run=[^ ]*||g; s| systemd\.run_success_action=[^ ]*||g; s| systemd\.unit=kernel-command-line\.target||g'
}

boot="" ssh_key_file="" deb="" config="" os=auto
hostname=clawbox user=clawbox-admin timezone=UTC locale=en_US.UTF-8 pull_model=0
wifi_ssid="" wifi_password=${CLAWBOX_WIFI_PASSWORD:-} wifi_country=""
console_secret=${CLAWBOX_CONSOLE_SECRET:-}
while [ $# -gt 0 ]; do
  [ "$1" = -h ] || [ "$1" = --help ] && { usage; exit 0; }
  [ "$1" = --pull-model ] && { pull_model=1; shift; continue; }
  case $1 in
    --boot | --ssh-key | --deb | --config | --hostname | --user | --timezone | --locale | \
      --wifi-ssid | --wifi-password | --wifi-country | --os | --console-secret) ;;
    *) usage >&2; fail "unknown option $1" ;;
  esac
  [ $# -ge 2 ] || fail "$1 needs a value"
  case $1 in
    --boot) boot=$2 ;; --ssh-key) ssh_key_file=$2 ;; --deb) deb=$2 ;; --config) config=$2 ;;
    --hostname) hostname=$2 ;; --user) user=$2 ;; --timezone) timezone=$2 ;; --locale) locale=$2 ;;
    --wifi-ssid) wifi_ssid=$2 ;; --wifi-password) wifi_password=$2 ;; --wifi-country) wifi_country=$2 ;;
    --os) os=$2 ;; --console-secret) console_secret=$2 ;;
    *) usage >&2; fail "unknown option $1" ;;
  esac
  shift 2
done

[ -n "$boot" ] || { usage >&2; fail "--boot is required"; }
[ -d "$boot" ] || fail "--boot $boot: not a folder (is the card mounted?)"
[ -f "$boot/config.txt" ] && [ -f "$boot/cmdline.txt" ] ||
  fail "--boot $boot: no config.txt/cmdline.txt — not a Raspberry Pi OS boot partition"
[ -n "$ssh_key_file" ] || fail "--ssh-key is required (the box has no password login)"
[ -f "$ssh_key_file" ] || fail "--ssh-key $ssh_key_file: file not found"
ssh_key=$(head -n 1 "$ssh_key_file")
[[ $ssh_key =~ ^(ssh-(ed25519|rsa)|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+)\ [A-Za-z0-9+/=]+ ]] ||
  fail "--ssh-key $ssh_key_file: not an OpenSSH public key (did you pass the private key?)"
[[ $hostname =~ ^[a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$ ]] || fail "--hostname $hostname: letters, digits and - only"
[[ $user =~ ^[a-z_][a-z0-9_-]{0,31}$ ]] || fail "--user $user: lower-case letters, digits, - and _ only"
case $user in
  root | clawbox | daemon | bin | sys | sync | games | man | lp | mail | news | uucp | proxy | www-data | \
    backup | list | irc | nobody | messagebus | sshd | avahi | polkitd | systemd-* | _*)
    fail "--user $user: a system account name; choose your own login name" ;;
esac
[[ $timezone =~ ^[A-Za-z0-9_+/-]+$ ]] || fail "--timezone $timezone: not a zone name like Asia/Shanghai"
[[ $locale =~ ^[a-zA-Z]+_[A-Z]+(\.[A-Za-z0-9-]+)?(@[a-z]+)?$ ]] || fail "--locale $locale: a locale like en_US.UTF-8"
if [ -d /usr/share/zoneinfo ] && [ ! -f "/usr/share/zoneinfo/$timezone" ]; then
  fail "--timezone $timezone: unknown zone"
fi
wifi_psk=""
if [ -n "$wifi_ssid" ]; then
  [ -n "$wifi_country" ] || fail "--wifi-country is required with --wifi-ssid (the Wi-Fi regulatory country, e.g. CN, DE, US)"
  [[ $wifi_country =~ ^[A-Z]{2}$ ]] || fail "--wifi-country $wifi_country: two capital letters, e.g. CN, DE, US"
  [ ${#wifi_ssid} -le 32 ] || fail "--wifi-ssid: at most 32 characters"
  wifi_psk=$(wpa_psk "$wifi_ssid" "$wifi_password") || exit 2
fi
case $os in auto|trixie|bookworm) ;; *) fail "--os $os: use auto, trixie or bookworm" ;; esac
if [ -n "$console_secret" ]; then
  [ ${#console_secret} -ge 16 ] || fail "--console-secret: at least 16 characters"
  [[ $console_secret =~ ^[[:graph:]]+$ ]] || fail "--console-secret: no spaces or control characters"
fi
if [ -z "$deb" ]; then
  deb=$(ls "$root"/dist/clawbox_*_arm64.deb 2>/dev/null | sort -V | tail -n 1 || true)
  [ -n "$deb" ] || fail "no dist/clawbox_*_arm64.deb; run npm run build or pass --deb"
fi
[ -f "$deb" ] || fail "--deb $deb: file not found"
[[ $(basename "$deb") =~ ^clawbox_.*_arm64\.deb$ ]] || fail "--deb $deb: expected clawbox_<version>_arm64.deb"
if [ -n "$config" ]; then [ -f "$config" ] || fail "--config $config: file not found"; fi
if [ "$os" = auto ]; then
  if [ -f "$boot/meta-data" ] || [ -f "$boot/user-data" ]; then os=trixie; else os=bookworm; fi
fi

yaml() { # a value safe inside a YAML double-quoted scalar
  local v=${1//\\/\\\\}
  printf '%s' "${v//\"/\\\"}"
}
fill() { # template file → stdout with @KEY@ replaced by YAML-escaped values
  local text
  text=$(cat "$1")
  text=${text//@HOSTNAME@/$(yaml "$hostname")}
  text=${text//@USER@/$(yaml "$user")}
  text=${text//@TIMEZONE@/$(yaml "$timezone")}
  text=${text//@LOCALE@/$(yaml "$locale")}
  text=${text//@SSH_KEY@/$(yaml "$ssh_key")}
  text=${text//@WIFI_SSID@/$(yaml "$wifi_ssid")}
  text=${text//@WIFI_PSK@/$(yaml "$wifi_psk")}
  text=${text//@WIFI_COUNTRY@/$(yaml "$wifi_country")}
  text=${text//@INSTANCE_ID@/$(date +%Y%m%d%H%M%S)}
  printf '%s\n' "$text"
}

mkdir -p "$boot/clawbox"
rm -f "$boot"/clawbox/clawbox_*_arm64.deb "$boot/clawbox/FIRSTBOOT-FAILED.txt"
cp "$deb" "$boot/clawbox/"
cp "$fw/install.sh" "$boot/clawbox/install.sh"
# A config from an earlier run must not be installed when this run gives none.
if [ -n "$config" ]; then cp "$config" "$boot/clawbox/clawbox.json"; else rm -f "$boot/clawbox/clawbox.json"; fi
rm -f "$boot/clawbox/pull-model"
# The console's login secret: install.sh moves it to /var/lib/clawbox (0600) and removes
# it from the card (the FAT partition is readable by every user of the box).
rm -f "$boot/clawbox/console-secret"
if [ -n "$console_secret" ]; then (umask 077 && printf '%s\n' "$console_secret" >"$boot/clawbox/console-secret"); fi
[ "$pull_model" = 0 ] || : >"$boot/clawbox/pull-model"

if [ "$os" = trixie ]; then
  # Switching from Bookworm mode: its firstrun must not run as well.
  rm -f "$boot/firstrun.sh" "$boot/clawbox/firstboot.env"
  clean_cmdline "$boot/cmdline.txt" | replace_file "$boot/cmdline.txt"
  fill "$fw/user-data" >"$boot/user-data"
  if [ -n "$wifi_ssid" ]; then
    fill "$fw/network-config" >"$boot/network-config"
  else
    fill "$fw/network-config" | sed '/^  wifis:/,$d' >"$boot/network-config"
  fi
  fill "$fw/meta-data" >"$boot/meta-data"
else
  # Switching from Trixie mode: remove the cloud-init files this script wrote (only ours).
  for f in user-data network-config meta-data; do
    if [ -f "$boot/$f" ] && grep -q 'clawbox' "$boot/$f"; then rm -f "$boot/$f"; fi
  done
  {
    printf 'CLAWBOX_%s=%q\n' HOSTNAME "$hostname" USER "$user" TIMEZONE "$timezone" LOCALE "$locale" \
      SSH_KEY "$ssh_key" WIFI_SSID "$wifi_ssid" WIFI_PSK "$wifi_psk" WIFI_COUNTRY "$wifi_country"
  } >"$boot/clawbox/firstboot.env"
  cp "$fw/firstrun.sh" "$boot/firstrun.sh"
  { clean_cmdline "$boot/cmdline.txt" | tr -d '\n'
    printf ' systemd.run=/boot/firmware/firstrun.sh systemd.run_success_action=reboot systemd.unit=kernel-command-line.target\n'
  } | replace_file "$boot/cmdline.txt"
fi

# config.txt: replace an earlier clawbox block, keep everything else as it was (CRLF too).
# awk ends every line it prints with a newline, so the block starts on its own line even
# when the file lacked a final newline.
awk '/^# >>> clawbox\r?$/ { skip = 1 } !skip { print } /^# <<< clawbox\r?$/ { skip = 0 }' "$boot/config.txt" |
  replace_file "$boot/config.txt"
cat "$fw/config.txt" >>"$boot/config.txt"

sync
echo "prepare-sd: $boot ready for first boot ($os): host $hostname, user $user, $(basename "$deb")"
[ -z "$console_secret" ] || echo "prepare-sd: console login secret set (type it on the console's login page)"
[ -n "$wifi_ssid" ] && echo "prepare-sd: Wi-Fi \"$wifi_ssid\" ($wifi_country)" || echo "prepare-sd: no Wi-Fi; connect Ethernet"
