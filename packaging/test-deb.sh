#!/bin/sh
# Installs a w365 .deb with apt-get on this machine, checks what it brings, and removes it.
# Needs root (it changes the system) and a machine where apt can install the dependencies.
#   sh packaging/test-deb.sh dist/w365_*_amd64.deb
set -eu
deb=$(realpath "$1")
[ "$(id -u)" = 0 ] || { echo "test-deb: run as root" >&2; exit 1; }
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
cleanup() {
	DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq w365 >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# The package declares what doctor checks.
fields=$(dpkg-deb -f "$deb" Depends Recommends)
for p in xvfb openbox dbus dbus-x11 at-spi2-core chromium tesseract-ocr tesseract-ocr-eng bubblewrap python3 nodejs npm git; do
	echo "$fields" | grep -Eq "(^|[ ,|])$p([ ,]|$)" || fail "$p is neither in Depends nor Recommends"
done
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install"; }
[ "$(command -v w365)" = /usr/bin/w365 ] || fail "w365 is not /usr/bin/w365"

# The version, commit and build date are stamped in (w365 version prints them and the Go
# release), and nothing links cgo.
v=$(dpkg-deb -f "$deb" Version)
w365 version | head -1 | grep -qx "w365 $v" || fail "w365 version does not say $v: $(w365 version)"
w365 version | grep -Eq '^commit: [0-9a-f]{40}$' || fail "w365 version names no commit: $(w365 version)"
w365 version | grep -Eq '^built: +[0-9]{4}-' || fail "w365 version names no build date: $(w365 version)"
w365 version | grep -Eq '^go: +go1\.' || fail "w365 version names no Go release: $(w365 version)"
if [ -n "${W365_COMMIT:-}" ]; then
	w365 version | grep -q "^commit: $W365_COMMIT" || fail "w365 version does not name commit $W365_COMMIT"
fi
if command -v go >/dev/null; then
	go version -m /usr/bin/w365 | grep -q 'CGO_ENABLED=0' || fail "built with cgo"
fi

# Every component doctor checks is there (exit 7 names what is missing).
HOME=$work w365 doctor || fail "w365 doctor reports a missing component"
HOME=$work w365 doctor --json | python3 -c 'import json,sys; c=json.load(sys.stdin); c=c["components"]; assert c and all(x["found"] for x in c), c'

# Man pages, completions, license, the systemd user unit.
man -w w365 | grep -q '^/usr/share/man/man1/w365.1.gz$' || fail "man -w w365: $(man -w w365 2>&1)"
MANWIDTH=80 man w365 2>/dev/null | grep -q 'Operate a computer' || fail "man w365 shows no page"
MANWIDTH=80 man w365-serve 2>/dev/null | grep -q 'W365_API_KEY_FILE' || fail "man w365-serve"
bash -c '. /usr/share/bash-completion/completions/w365 && complete -p w365' >/dev/null || fail "bash completion"
[ -f /usr/share/zsh/vendor-completions/_w365 ] && [ -f /usr/share/fish/vendor_completions.d/w365.fish ] || fail "zsh/fish completions"
cmp -s /usr/share/doc/w365/copyright "$(dirname "$0")/../LICENSE" || fail "license not at /usr/share/doc/w365/copyright"
grep -q 'github.com/spf13/cobra' /usr/share/doc/w365/THIRD_PARTY_LICENSES || fail "third-party licenses"
cmp -s /usr/share/doc/w365/NOTICE "$(dirname "$0")/../NOTICE" || fail "NOTICE not at /usr/share/doc/w365/NOTICE"
mkdir -m 700 "$work/xdg"
XDG_RUNTIME_DIR=$work/xdg systemd-analyze verify --user /usr/lib/systemd/user/w365.service || fail "systemd unit"

# The installed binary serves HTTP with the key from a file, as the unit runs it.
printf 'k3y-from-file\n' >"$work/key"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
HOME=$work W365_RUNTIME_DIR=$work/run W365_API_KEY_FILE=$work/key w365 --virtual serve --http 127.0.0.1:$port 2>"$work/serve.log" &
pid=$!
ok=
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d '{}' "http://127.0.0.1:$port/")
kill "$pid"; wait "$pid" || true
[ -n "$ok" ] || { cat "$work/serve.log"; fail "/healthz did not answer"; }
[ "$code" = 401 ] || fail "a call without the key got $code, not 401"

DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq w365 >/dev/null
[ ! -e /usr/bin/w365 ] || fail "apt-get remove left /usr/bin/w365"
echo "test-deb: ok: $(basename "$deb") installs, doctor finds every component, man w365 works, removes cleanly"
