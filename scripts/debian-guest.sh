#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one of Debian's kernels with this machine's own Debian userland and
# run a script in it under systemd; print what it printed and exit with its
# status.
#
# Usage: debian-guest.sh [options] SCRIPT [ARGS...]
#   --kver KVER      the kernel to boot (default: $KVER): its image comes
#                    from $CNG_CACHE/image-KVER (scripts/prereqs.sh)
#   --disk FILE      keep the guest's changes in FILE, an ext4 image made
#                    on first use (default: none, changes go to a tmpfs
#                    and die with the guest)
#   --console FILE   where the guest console goes (default: a file beside
#                    the job, shown on failure)
#   --timeout S      give up after S seconds of the whole run (default 1800)
#
# The guest's root is an overlay: this machine's / over virtio-9p,
# read-only, under a writable upper layer (tmpfs, or the --disk image,
# which then survives reboots and later runs). The initramfs holds only
# busybox and the target kernel's 9p, virtio and overlay modules; its init
# mounts the overlay, lends the running kernel's modules from the cache
# image when the host has none in /lib/modules, and switch_roots to
# systemd. So everything installed on the host (compilers, DKMS, kernel
# headers, nvme-cli, targetcli ...) is there, and nothing the guest does
# reaches the host.
#
# SCRIPT runs as root from a unit (cng-job.service) once the system is up,
# in /cng-job, a read-write 9p share of a fresh job directory on the host,
# with CNG_BOOT set to the boot number (1, 2, ...). Its output goes to our
# stdout. To be rebooted, it creates /cng-job/reboot and exits: the guest
# reboots for real (the kernel and systemd start again, over the same
# --disk) and SCRIPT runs again with the next CNG_BOOT. Otherwise the guest
# powers off when SCRIPT ends, and we exit with its status; 124 when the
# guest gave none in time (the console's tail then goes to stderr).
#
# Environment: CNG_CACHE, KVER; QEMU_MEM (MiB, default 2048), QEMU_SMP
# (default 2); GUEST_APPEND, more kernel command line.
set -eu

: "${CNG_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/configfs-ng}"
kver=${KVER:-}
disk=
console=
timeout=1800
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--disk) disk=$2; shift 2 ;;
	--console) console=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--) shift; break ;;
	-*) echo "debian-guest: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { sed -n '5,16p' "$0" >&2; exit 2; }
script=$1
shift
[ -n "$kver" ] || { echo "debian-guest: no --kver and no KVER" >&2; exit 2; }
kimg=$CNG_CACHE/image-$kver
kernel=$kimg/boot/vmlinuz-$kver
[ -f "$kernel" ] || {
	echo "debian-guest: no $kernel (run: make prereqs KVER=$kver)" >&2
	exit 2
}

job=$(mktemp -d "${TMPDIR:-/tmp}/cng-guest.XXXXXX")
stage=$job/.initramfs
trap 'rm -rf "$job"' EXIT
chmod 0755 "$job"
install -m 0755 "$script" "$job/run"
if [ $# -gt 0 ]; then printf '%q ' "$@"; fi > "$job/args"
: "${console:=$job/console.log}"

# The initramfs: busybox, the modules that reach the root, and init.
mkdir -p "$stage/bin" "$stage/proc" "$stage/sys" "$stage/dev" \
	"$stage/lower" "$stage/upper" "$stage/newroot"
install -m 0755 /bin/busybox "$stage/bin/busybox"
for app in sh mount umount mkdir insmod switch_root cat cp ls sleep \
	   poweroff ln rm echo grep; do
	ln -s busybox "$stage/bin/$app"
done
: > "$stage/kmods"
for m in virtio_pci 9pnet_virtio 9p overlay virtio_blk ext4; do
	modprobe -d "$kimg" -S "$kver" --show-depends "$m" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | awk '!seen[$0]++' | while read -r ko; do
	# Staged decompressed, in load order: busybox's insmod has no xz.
	name=$(basename "$ko")
	case $name in
	*.ko.xz)  xz -dc "$ko" > "$stage/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$ko" > "$stage/${name%.zst}"; name=${name%.zst} ;;
	*)	  cp "$ko" "$stage/$name" ;;
	esac
	echo "/$name" >> "$stage/kmods"
done

cat > "$stage/init" <<EOF
#!/bin/sh
# debian-guest.sh's init: the overlay root, then systemd.
kver=$kver
kimg=$kimg
EOF
cat >> "$stage/init" <<'EOF'
fail() { echo "debian-guest init: $*"; sleep 5; poweroff -f; }
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for ko in $(cat /kmods); do
	insmod "$ko" 2>/dev/null
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro,cache=loose \
	hostroot /lower || fail "cannot mount the host's root"
if [ -b /dev/vda ]; then
	mount -t ext4 /dev/vda /upper || fail "cannot mount /dev/vda"
else
	mount -t tmpfs -o mode=0755 upper /upper
fi
mkdir -p /upper/upper /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/upper,workdir=/upper/work \
	root /newroot || fail "cannot mount the overlay"
mkdir -p /newroot/cng-job
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 cngjob \
	/newroot/cng-job || fail "cannot mount the job share"
boot=$(( $(cat /newroot/cng-job/boot 2>/dev/null || echo 0) + 1 ))
echo "$boot" > /newroot/cng-job/boot
# The host may lack this kernel's modules: lend the cache image's, at
# every boot. Ask the host's tree, not the overlay: over a --disk, the
# first boot leaves an empty kernel/ in the upper layer, and a later boot
# that took it for the modules would see none (modprobe of any module
# fails with ENOENT, and a depmod then drops them all from modules.dep).
# The modules.* files are copied once, so that a depmod in the guest
# (DKMS) keeps its result across reboots over the same disk.
mods=/newroot/lib/modules/$kver
if [ ! -d "/lower/lib/modules/$kver/kernel" ]; then
	mkdir -p "$mods/kernel"
	mount -o bind "/newroot$kimg/lib/modules/$kver/kernel" "$mods/kernel" ||
		fail "cannot lend $kimg's modules"
	[ -f "$mods/modules.dep" ] ||
		cp "/newroot$kimg/lib/modules/$kver"/modules.* "$mods/"
fi
unit=/newroot/etc/systemd/system
mkdir -p "$unit/multi-user.target.wants"
cat > "$unit/cng-job.service" <<UNIT
[Unit]
Description=debian-guest.sh job
DefaultDependencies=no
Requires=sysinit.target
Wants=network-online.target
After=basic.target network-online.target configfs-restore.service
Conflicts=shutdown.target
Before=shutdown.target

[Service]
Type=oneshot
Environment=CNG_BOOT=$boot
WorkingDirectory=/cng-job
StandardOutput=append:/cng-job/out
StandardError=append:/cng-job/out
ExecStart=/bin/sh -c 'eval "set -- \$\$(cat /cng-job/args)"; /cng-job/run "\$\$@"; rc=\$\$?; if [ -e /cng-job/reboot ]; then rm -f /cng-job/reboot; sync; systemctl reboot --no-block; else echo \$\$rc > /cng-job/rc; sync; systemctl poweroff --no-block; fi'
UNIT
ln -sf ../cng-job.service "$unit/multi-user.target.wants/cng-job.service"
umount /proc /sys
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /sbin/init
fail "switch_root failed"
EOF
chmod 0755 "$stage/init"
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 > "$job/initrd"
rm -rf "$stage"

drive=()
if [ -n "$disk" ]; then
	if [ ! -f "$disk" ]; then
		truncate -s 8G "$disk"
		mkfs.ext4 -q -F "$disk"
	fi
	drive=(-drive "file=$disk,format=raw,if=virtio,cache=unsafe")
fi

# Units that would only slow the guest down or touch real hardware.
mask="postgresql.service nvmf-autoconnect.service
	nvmefc-boot-connections.service apt-daily.timer apt-daily-upgrade.timer
	man-db.timer e2scrub_all.timer e2scrub_reap.service fstrim.timer
	dpkg-db-backup.timer systemd-timesyncd.service getty@tty1.service
	systemd-pstore.service"
cmdline="console=ttyS0 panic=-1 loglevel=5 systemd.unit=multi-user.target fstab=no systemd.show_status=1"
for u in $mask; do
	cmdline="$cmdline systemd.mask=$u"
done
cmdline="$cmdline ${GUEST_APPEND:-}"

set +e
timeout --foreground "$timeout" qemu-system-x86_64 -accel tcg -cpu max \
	-smp "${QEMU_SMP:-2}" -m "${QEMU_MEM:-2048}" \
	-nodefaults -display none -monitor none -nic none \
	-kernel "$kernel" -initrd "$job/initrd" -append "$cmdline" \
	-virtfs "local,path=/,mount_tag=hostroot,security_model=passthrough,readonly=on,multidevs=remap" \
	-virtfs "local,path=$job,mount_tag=cngjob,security_model=none,multidevs=remap" \
	"${drive[@]}" -device virtio-rng-pci \
	-serial "file:$console" < /dev/null > "$job/qemu.log" 2>&1
qrc=$?
set -e
[ -f "$job/out" ] && cat "$job/out"
# What the job's own watcher saw of a long step (tests/deb/in-guest.sh).
if [ -s "$job/watch.log" ]; then
	echo "debian-guest: the job's watch log (last 200 lines):" >&2
	tail -n 200 "$job/watch.log" >&2
fi
if [ -f "$job/rc" ]; then
	exit "$(cat "$job/rc")"
fi
{
	echo "debian-guest: no exit status from the guest (qemu: $qrc," \
		"boots: $(cat "$job/boot" 2>/dev/null || echo 0))"
	cat "$job/qemu.log"
	echo "debian-guest: console (last 60 lines of $console):"
	tail -n 60 "$console" | tr -d '\r'
} >&2
exit 124
