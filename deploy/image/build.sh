#!/bin/sh
# Builds the w365 container image from our .deb on a Debian base, with the tools a Debian
# machine has: debootstrap makes the base (cached), apt-get installs the .deb and what it
# depends on and recommends into that root file system (in a chroot), and buildah commits
# the file system as an image. Needs root.
#   sh deploy/image/build.sh dist/w365_*_amd64.deb
# Environment: W365_IMAGE (default localhost/w365:latest), W365_IMAGE_CACHE (default
# /var/cache/w365-image), W365_IMAGE_ROOTFS (where the finished root file system is kept,
# default $W365_IMAGE_CACHE/rootfs: image-test runs it in a chroot when containers cannot run).
set -eu
deb=$(realpath "$1")
image=${W365_IMAGE:-localhost/w365:latest}
cache=${W365_IMAGE_CACHE:-/var/cache/w365-image}
rootfs=${W365_IMAGE_ROOTFS:-$cache/rootfs}
suite=bookworm
mirror=${W365_DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" = 0 ] || { echo "image: run as root" >&2; exit 1; }
for t in debootstrap buildah; do
	command -v $t >/dev/null || { echo "image: needs $t (apt-get install debootstrap buildah podman)" >&2; exit 1; }
done
mkdir -p "$cache"
# Docker format: OCI image configs have no health check.
export BUILDAH_FORMAT=docker

base=$cache/base-$suite.tar.gz
if [ ! -f "$base" ]; then
	debootstrap --variant=minbase "$suite" "$cache/base.tmp" "$mirror"
	tar -C "$cache/base.tmp" -czf "$base.tmp" . && mv "$base.tmp" "$base"
	rm -rf "$cache/base.tmp"
fi

rm -rf "$rootfs" && mkdir -p "$rootfs"
tar -C "$rootfs" -xzf "$base"
umount_all() {
	for m in dev/pts dev proc; do umount "$rootfs/$m" 2>/dev/null || true; done
}
trap umount_all EXIT
mount -t proc proc "$rootfs/proc"
mount --bind /dev "$rootfs/dev"
mount --bind /dev/pts "$rootfs/dev/pts"
cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
	"$mirror" "$suite" "$mirror" "$suite" "$suite" >"$rootfs/etc/apt/sources.list"
cp "$deb" "$rootfs/tmp/w365.deb"
# Recommends, first alternative of each: the browser, OCR, clipboard images, git.
recommends=$(dpkg-deb -f "$deb" Recommends | sed 's/ *|[^,]*//g; s/,/ /g')
chroot "$rootfs" /bin/sh -eu -c "
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends /tmp/w365.deb $recommends fonts-dejavu-core ca-certificates >/dev/null
	apt-get clean
	rm -rf /var/lib/apt/lists/* /tmp/w365.deb
	useradd --create-home --uid 10365 --user-group --shell /bin/sh w365
"
umount_all
trap - EXIT
: >"$rootfs/etc/resolv.conf"
echo w365 >"$rootfs/etc/hostname"
install -m 755 "$(dirname "$0")/healthcheck" "$rootfs/usr/local/bin/w365-healthcheck"

ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
mnt=$(buildah mount "$ctr")
cp -a "$rootfs/." "$mnt/"
buildah umount "$ctr" >/dev/null
buildah config \
	--user 10365:10365 \
	--workingdir /home/w365 \
	--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	--env HOME=/home/w365 \
	--env W365_API_KEY_FILE=/run/secrets/w365_api_key \
	--entrypoint '["/usr/bin/w365", "--virtual", "serve"]' \
	--cmd '["--http", "0.0.0.0:8365"]' \
	--port 8365/tcp \
	--healthcheck 'CMD /usr/local/bin/w365-healthcheck' \
	--healthcheck-interval 30s --healthcheck-timeout 5s --healthcheck-start-period 20s --healthcheck-retries 3 \
	--stop-signal SIGTERM \
	--label org.opencontainers.image.title=w365 \
	--label org.opencontainers.image.description="w365 MCP server over streamable HTTP on an embedded virtual desktop" \
	--label org.opencontainers.image.licenses=Apache-2.0 \
	--label io.modelcontextprotocol.server.name=io.github.w365/w365 \
	--label org.opencontainers.image.version="$(dpkg-deb -f "$deb" Version)" \
	--label io.w365.ports="8365: MCP (streamable HTTP, GET /healthz); the live view, when the host serves one, on the port its flags name" \
	"$ctr"
buildah commit --quiet --format docker --rm "$ctr" "$image" >/dev/null
trap - EXIT
echo "image: built $image from $(basename "$deb"); root file system kept in $rootfs"
