#!/bin/sh
# Runs the w365 image with the API key from a secret file and drives it over MCP/HTTP:
# list the tools, take a screenshot (deploy/image/mcpcheck). Where containers cannot run
# (W365_IMAGE_TEST=auto finds out, =container insists), it runs the image's own root file
# system (buildah mount), entry point, user and health check in a chroot instead, and says so.
set -eu
image=${W365_IMAGE:-localhost/w365:latest}
mode=${W365_IMAGE_TEST:-auto}
GO=${GO:-go}
[ "$(id -u)" = 0 ] || { echo "image-test: run as root" >&2; exit 1; }
work=$(mktemp -d)
key=$work/api-key
head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$key"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
secret=w365-image-test-$$
$GO build -o "$work/mcpcheck" ./deploy/image/mcpcheck

# The image declares a non-root user, the key file and a health check.
[ "$(podman image inspect -f '{{.Config.User}}' "$image")" = 10365:10365 ] || { echo "image-test: image user is not 10365" >&2; exit 1; }
podman image inspect -f '{{.Config.Env}}' "$image" | grep -q 'W365_API_KEY_FILE=/run/secrets/w365_api_key'
health=$(podman image inspect -f '{{join .Config.Healthcheck.Test " "}}' "$image")
[ -n "$health" ] || { echo "image-test: no health check" >&2; exit 1; }

# podman's global and run options that let containers start here: first none, then what
# this kind of machine needs (its hybrid cgroups defeat crun, and no process may raise its
# hard limits, which podman's default ulimits ask for).
podman_global=
podman_run=
runs() { podman $1 run --rm $2 --entrypoint /bin/true "$image" 2>&1 | grep -v 'level=' || true; }

container() {
	podman secret create "$secret" "$key" >/dev/null
	cleanup() {
		podman $podman_global rm -f "$secret" >/dev/null 2>&1; podman secret rm "$secret" >/dev/null 2>&1; rm -rf "$work"
	}
	trap cleanup EXIT
	podman $podman_global run --rm $podman_run --entrypoint /usr/bin/w365 "$image" doctor
	podman $podman_global run -d --name "$secret" $podman_run --secret "$secret,target=w365_api_key,uid=10365,mode=0400" \
		--shm-size 1g --security-opt systempaths=unconfined -p "127.0.0.1:$port:8365" "$image" >/dev/null
	"$work/mcpcheck" -url "http://127.0.0.1:$port/" -key-file "$key" -sandbox || { podman $podman_global logs "$secret" >&2; exit 1; }
	podman $podman_global healthcheck run "$secret" 2>&1 | grep -v 'level=' || true
	[ "$(podman $podman_global inspect -f '{{.State.Health.Status}}' "$secret")" = healthy ] || { echo "image-test: container not healthy" >&2; exit 1; }
	echo "image-test: ok: container of $image${podman_global:+ (podman $podman_global, $podman_run)}"
}

chrooted() {
	ctr=$(buildah from "$image")
	root=$(buildah mount "$ctr")
	pid=
	cleanup() {
		[ -z "$pid" ] || { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; }
		for m in dev/shm dev/pts dev proc tmp; do umount "$root/$m" 2>/dev/null || true; done
		buildah umount "$ctr" >/dev/null 2>&1; buildah rm "$ctr" >/dev/null 2>&1; rm -rf "$work"
	}
	trap cleanup EXIT
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	mount --bind /dev/pts "$root/dev/pts"
	mount -t tmpfs -o size=1g tmpfs "$root/dev/shm"
	mount -t tmpfs tmpfs "$root/tmp"
	# The secret where podman would put it, readable by the image's user only.
	mkdir -p "$root/run/secrets"
	install -m 0400 -o 10365 -g 10365 "$key" "$root/run/secrets/w365_api_key"
	user=$(podman image inspect -f '{{.Config.User}}' "$image")
	entry=$(podman image inspect -f '{{join .Config.Entrypoint " "}}' "$image")
	envs=$(podman image inspect -f '{{join .Config.Env " "}}' "$image")
	# The .deb brought every component onto the bare base.
	env -i $envs /usr/sbin/chroot --userspec="$user" "$root" /usr/bin/w365 doctor
	# The image's entry point, environment and user; loopback on a free port, since the
	# chroot shares this machine's network. No sandbox check: the kernel refuses user
	# namespaces to a chrooted process, so bubblewrap cannot run here.
	env -i $envs /usr/sbin/chroot --userspec="$user" "$root" $entry --http "127.0.0.1:$port" 2>"$work/serve.log" &
	pid=$!
	"$work/mcpcheck" -url "http://127.0.0.1:$port/" -key-file "$key" || { cat "$work/serve.log" >&2; exit 1; }
	# The image's health check command, on the test's port.
	env -i $envs W365_HEALTH_PORT="$port" /usr/sbin/chroot --userspec="$user" "$root" ${health#CMD } || { echo "image-test: health check failed" >&2; exit 1; }
	kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
	if env -i $envs W365_HEALTH_PORT="$port" /usr/sbin/chroot --userspec="$user" "$root" ${health#CMD } 2>/dev/null; then
		echo "image-test: the health check passes with the server stopped" >&2; exit 1
	fi
	echo "image-test: ok: $image's root file system, entry point, user and health check in a chroot"
}

if [ "$mode" = chroot ]; then
	chrooted
	exit
fi
if out=$(podman run --rm --entrypoint /bin/true "$image" 2>&1); then
	container
	exit
fi
out=$(printf '%s\n' "$out" | grep -v 'level=' || true)
echo "image-test: podman run fails here: $out"
podman_global="--runtime runc"
podman_run="--ulimit nofile=16384:16384 --ulimit nproc=16384:16384"
if runs "$podman_global" "$podman_run" | grep -q .; then
	echo "image-test: with $podman_global $podman_run too: $(runs "$podman_global" "$podman_run")"
	if [ "$mode" = container ]; then
		exit 1
	fi
	echo "image-test: containers cannot run on this machine; testing the image in a chroot instead"
	chrooted
	exit
fi
echo "image-test: running it with $podman_global $podman_run"
container
