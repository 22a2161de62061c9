#!/usr/bin/env bash
# Builds the arm64 Debian bookworm machine the appliance checks boot under
# qemu-system-aarch64 (docs/VM.md), from Debian packages only: mmdebstrap fetches them
# from the configured mirror and runs their maintainer scripts under qemu-user (an aarch64
# binfmt handler is registered for the build and removed after it). The result is cached
# outside the repository, keyed by a hash of this script (it holds every input: suite,
# package list, guest configuration), so a second run reuses it at once.
#
#   scripts/vm/build-image.sh [--cache DIR] [--force]
#
# Prints the image folder as its last line. It holds:
#   rootfs.img        raw ext4 root file system (sparse, 3 GiB), never written by a boot:
#                     every run boots a qcow2 overlay on top of it
#   vmlinuz initrd.img the guest's own linux-image-arm64 kernel and initramfs (direct boot)
#   id_ed25519(.pub)  the key root's authorized_keys holds (the test machine's only login)
#   packages.txt      the exact package versions inside
# What the image is: a bare Debian with systemd, udev, OpenSSH, sqlite3 and sudo, the
# first user `pi` (uid 1000, as Raspberry Pi OS has one to rename), /boot/firmware mounted
# from a second disk (the FAT boot partition), systemd-networkd on the qemu user network,
# and a socket proxy 8790 → 127.0.0.1:18790 standing in for the tunnel a box needs to
# receive WeCom callbacks (clawbox itself keeps listening on loopback only).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=bookworm
mirror=${CLAWBOX_VM_MIRROR:-http://deb.debian.org/debian}
packages=systemd-sysv,udev,openssh-server,sqlite3,sudo,tzdata,kmod,iproute2,linux-image-arm64,initramfs-tools
cache=${CLAWBOX_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/clawbox-vm}
force=0
while [ $# -gt 0 ]; do
  case $1 in
    --cache) cache=$2; shift 2 ;;
    --force) force=1; shift ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done

# The key: every line of this script that is not a comment, and the mirror.
key=$( { grep -v '^[[:space:]]*#' "$here/build-image.sh"; echo "$mirror"; } | sha256sum | cut -c1-16)
out=$cache/image-$key
if [ "$force" = 0 ] && [ -f "$out/ready" ]; then
  echo "$out"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "build-image: run as root (mmdebstrap, binfmt_misc)" >&2; exit 1; }

need=()
for tool in mmdebstrap:mmdebstrap qemu-aarch64-static:qemu-user-static arch-test:arch-test mke2fs:e2fsprogs \
  ssh-keygen:openssh-client; do
  command -v "${tool%%:*}" >/dev/null || need+=("${tool#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "build-image: apt-get install ${need[*]}" >&2
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"; } >&2
fi

# Mounts (binfmt_misc, the chroot's /proc…) stay in a private mount namespace.
if [ "${CLAWBOX_VM_UNSHARED:-}" != 1 ]; then
  again=(--cache "$cache")
  [ "$force" = 1 ] && again+=(--force)
  CLAWBOX_VM_UNSHARED=1 exec unshare --mount --propagation private bash "$0" "${again[@]}"
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build-XXXXXX")
registered=""
cleanup() {
  [ -n "$registered" ] && echo -1 >"/proc/sys/fs/binfmt_misc/$registered" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

# An aarch64 handler for the maintainer scripts (binfmt_misc is not mounted by default).
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
if ! grep -qs 'magic 7f454c460201010000000000000000000200b700' /proc/sys/fs/binfmt_misc/*; then
  printf '%s' ':clawbox-vm-aarch64:M::\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00:\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff:/usr/bin/qemu-aarch64-static:F' \
    >/proc/sys/fs/binfmt_misc/register
  registered=clawbox-vm-aarch64
fi

ssh-keygen -q -t ed25519 -N '' -C clawbox-vm -f "$work/id_ed25519"

# Runs inside mmdebstrap after the packages are installed ($1 = the root folder).
cat >"$work/customize.sh" <<'CUSTOMIZE'
set -eu
r=$1
echo raspberrypi >"$r/etc/hostname"
echo LANG=C.UTF-8 >"$r/etc/default/locale"
printf '127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n' >"$r/etc/hosts"
mkdir -p "$r/boot/firmware" "$r/var/log/journal"
# Root on the first virtio disk, the FAT boot partition on the second (as on a card).
# The boot partition's device gets 10 minutes instead of systemd's 90 s: under emulation
# on a loaded host udev starts only after fsck of the root, sysusers and tmpfiles (200 s
# into a boot after a power cut was seen), and a device job that times out first stops
# the boot in emergency mode. (systemd 252 ignores systemd.default_timeout_start_sec=
# and systemd.default_device_timeout_sec= on the kernel command line for this.)
cat >"$r/etc/fstab" <<'EOF'
/dev/vda  /              ext4  defaults,noatime                        0  1
/dev/vdb  /boot/firmware vfat  defaults,x-systemd.device-timeout=10min  0  2
EOF
mkdir -p "$r/etc/systemd/network"
cat >"$r/etc/systemd/network/20-wired.network" <<'EOF'
[Match]
Name=en* eth*
[Network]
# qemu's user network: fixed addresses, no DHCP round trip at boot.
Address=10.0.2.15/24
Gateway=10.0.2.2
DNS=10.0.2.3
EOF
# The tunnel a box receiving WeCom callbacks needs, in front of clawbox's loopback port.
cat >"$r/etc/systemd/system/clawbox-vm-proxy.socket" <<'EOF'
[Unit]
Description=Test machine: forward :8790 to clawbox on 127.0.0.1:18790
[Socket]
ListenStream=8790
[Install]
WantedBy=sockets.target
EOF
cat >"$r/etc/systemd/system/clawbox-vm-proxy.service" <<'EOF'
[Unit]
Description=Test machine: forward :8790 to clawbox on 127.0.0.1:18790
[Service]
ExecStart=/lib/systemd/systemd-socket-proxyd 127.0.0.1:18790
EOF
chroot "$r" systemctl enable systemd-networkd.service clawbox-vm-proxy.socket >/dev/null 2>&1
# Boot time under TCG: what a Pi runs but nothing here needs (no timers competing with
# the checks, no logind/dbus: no desktop sessions; no debug/fuse/hugepage mounts).
for unit in apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer e2scrub_all.timer \
  fstrim.timer man-db.timer e2scrub_reap.service systemd-networkd-wait-online.service \
  systemd-logind.service systemd-pstore.service systemd-network-generator.service getty@tty1.service \
  modprobe@configfs.service modprobe@efi_pstore.service modprobe@dm_mod.service modprobe@fuse.service \
  modprobe@drm.service modprobe@loop.service dev-hugepages.mount dev-mqueue.mount \
  sys-kernel-debug.mount sys-kernel-tracing.mount sys-kernel-config.mount sys-fs-fuse-connections.mount; do
  chroot "$r" systemctl mask "$unit" >/dev/null 2>&1
done
# The first user, as on Raspberry Pi OS: firstrun.sh renames it.
chroot "$r" useradd -m -u 1000 -s /bin/bash -G sudo pi
chroot "$r" passwd -l pi >/dev/null
# Root's key: the test machine's way in (firstrun.sh adds the owner's).
install -d -m 0700 "$r/root/.ssh"
install -m 0600 /dev/stdin "$r/root/.ssh/authorized_keys" <"$CLAWBOX_VM_PUBKEY"
rm "$r/usr/sbin/update-initramfs"
chroot "$r" dpkg-divert --quiet --local --rename --remove /usr/sbin/update-initramfs
chroot "$r" update-initramfs -c -k all >/dev/null 2>&1
chroot "$r" dpkg-query -W -f '${Package} ${Version}\n' >"$CLAWBOX_VM_WORK/packages.txt"
rm -f "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*_Packages*
CUSTOMIZE

# Before the kernel is installed: only the modules the machine needs go into the
# initramfs (a small one is built faster under qemu-user and unpacks faster under TCG),
# and update-initramfs is diverted so the kernel's postinst and the trigger do not build
# it twice; it is built once at the end (customize.sh).
cat >"$work/essential.sh" <<'ESSENTIAL'
set -eu
mkdir -p "$1/etc/initramfs-tools/conf.d"
printf 'MODULES=list\n' >"$1/etc/initramfs-tools/conf.d/clawbox-vm.conf"
printf 'virtio_pci\nvirtio_mmio\nvirtio_blk\next4\n' >"$1/etc/initramfs-tools/modules"
chroot "$1" dpkg-divert --quiet --local --rename --add /usr/sbin/update-initramfs
ln -s /bin/true "$1/usr/sbin/update-initramfs"
ESSENTIAL

echo "build-image: mmdebstrap $suite arm64 from $mirror (several minutes under qemu-user)" >&2
export CLAWBOX_VM_PUBKEY=$work/id_ed25519.pub CLAWBOX_VM_WORK=$work
mmdebstrap --quiet --arch=arm64 --variant=minbase --mode=root \
  --include="$packages" \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --essential-hook="sh $work/essential.sh \"\$1\"" \
  --customize-hook="sh $work/customize.sh \"\$1\"" \
  "$suite" "$work/root" "$mirror" >&2

kernel=$(ls "$work"/root/boot/vmlinuz-* | sort -V | tail -n 1)
cp "$kernel" "$work/vmlinuz"
cp "$work/root/boot/initrd.img-${kernel##*/vmlinuz-}" "$work/initrd.img"
mke2fs -q -t ext4 -L clawbox-root -d "$work/root" "$work/rootfs.img" 3G
rm -rf "$work/root"
rm -rf "$out"
mkdir -p "$out"
mv "$work/rootfs.img" "$work/vmlinuz" "$work/initrd.img" "$work/id_ed25519" "$work/id_ed25519.pub" \
  "$work/packages.txt" "$out/"
date -u +%FT%TZ >"$out/ready"
echo "build-image: $out ($(du -sh --apparent-size "$out/rootfs.img" | cut -f1) apparent, $(du -sh "$out/rootfs.img" | cut -f1) used)" >&2
echo "$out"
