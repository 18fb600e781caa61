#!/bin/sh
# helm lint and helm template on the chart, and every rendered manifest against the
# Kubernetes schemas of KUBE_VERSION, made offline from the OpenAPI document that the
# k8s.io/kubernetes module ships. Run by `make helm-test` (part of `make test`).
set -eu
: "${HELM:?}" "${KUBECONFORM:?}" "${KUBE_VERSION:?}" "${W365_BIN:?}"
GO=${GO:-go}
chart=deploy/helm/w365
work=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

schemas=$(pwd)/bin/kube-schemas/$KUBE_VERSION
if [ ! -f "$schemas/statefulset-apps-v1.json" ]; then
	dir=$(cd / && GOFLAGS=-mod=mod $GO mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -f "$dir/api/openapi-spec/swagger.json" ] || { echo "helm-test: no swagger.json in k8s.io/kubernetes@$KUBE_VERSION" >&2; exit 1; }
	$GO run ./deploy/helm/kubeschema -in "$dir/api/openapi-spec/swagger.json" -out "$schemas.tmp"
	rm -rf "$schemas" && mv "$schemas.tmp" "$schemas"
fi

# Value sets that together render every template and branch.
cat >"$work/full.yaml" <<'V'
hosts:
  replicas: 3
  policy: '{}'
  extraArgs: [--log-level, debug]
  extraEnv: [{name: TZ, value: UTC}]
auth:
  existingSecret: w365-key
  keysFileSecret: w365-keys
ingress:
  enabled: true
  className: nginx
  tls: [{hosts: [w365.example.com], secretName: w365-tls}]
V
cat >"$work/external.yaml" <<'V'
auth: {apiKey: s3cret}
router: {replicas: 1, upstreams: ["10.0.0.1:8365", "10.0.0.2:8365"]}
V
cat >"$work/norouter.yaml" <<'V'
auth: {apiKey: s3cret}
router: {enabled: false}
hosts: {sandbox: false}
V
cat >"$work/minimal.yaml" <<'V'
auth: {apiKey: s3cret}
V

for v in minimal full external norouter; do
	$HELM lint --strict "$chart" -f "$work/$v.yaml"
	$HELM template w365 "$chart" --namespace agents -f "$work/$v.yaml" >"$work/$v.out.yaml"
	$KUBECONFORM -strict -summary -kubernetes-version "${KUBE_VERSION#v}" \
		-schema-location "$schemas/{{.ResourceKind}}{{.KindSuffix}}.json" "$work/$v.out.yaml"
done

# What the chart promises, in the rendered output.
grep -q 'kind: PodDisruptionBudget' "$work/minimal.out.yaml"
grep -q 'readinessProbe' "$work/minimal.out.yaml"
grep -q 'procMount: Unmasked' "$work/minimal.out.yaml"
grep -q 'type: RuntimeDefault' "$work/norouter.out.yaml"
grep -q 'command: \[/usr/bin/w365\]' "$work/minimal.out.yaml"
grep -q 'hash $w365_route consistent' "$work/minimal.out.yaml"
grep -q 'w365-2.w365-hosts.agents.svc.cluster.local:8365 resolve' "$work/full.out.yaml"
grep -q -- '--keys-file' "$work/full.out.yaml"
grep -q 'server 10.0.0.2:8365;' "$work/external.out.yaml"
! grep -q 'kind: Deployment' "$work/norouter.out.yaml"
# The host's rendered command line is one the binary accepts.
args=$(sed -n '/^          args:/,/^          env:/p' "$work/minimal.out.yaml" | sed -n 's/^            - //p' | tr -d '"')
"$W365_BIN" $args --help >/dev/null || { echo "helm-test: w365 rejects the chart's arguments: $args" >&2; exit 1; }
# Without a key the chart refuses to render (w365 would refuse to start).
if $HELM template w365 "$chart" >/dev/null 2>"$work/err"; then
	echo "helm-test: the chart rendered without a key" >&2
	exit 1
fi
grep -q 'without a key' "$work/err"
# Pod names are route names, which prefix session ids: a release name too long for one is refused.
if $HELM template a-release-name-much-too-long "$chart" --set auth.apiKey=x >/dev/null 2>"$work/err"; then
	echo "helm-test: the chart rendered pod names too long for route names" >&2
	exit 1
fi
grep -q 'longer than the 29 characters' "$work/err"
grep -q 'W365_ROUTE_NAME' "$work/minimal.out.yaml"
grep -q '"~^w365-1\\." w365_host_1;' "$work/minimal.out.yaml"
# values.schema.json refuses a misspelt value and a bad one.
for bad in hosts.replica=2 hosts.screen=big "router.upstreams={a;b:1}"; do
	if $HELM template w365 "$chart" --set auth.apiKey=x --set "$bad" >/dev/null 2>&1; then
		echo "helm-test: the chart took --set $bad" >&2
		exit 1
	fi
done

# The router routes: two real hosts behind the chart's own nginx.conf (the Debian nginx,
# unpacked, not installed), and an MCP client that needs every session's calls to reach
# the host holding it (deploy/helm/routecheck).
nginx=$(command -v nginx || true)
if [ -z "$nginx" ]; then
	nginx=$(pwd)/bin/nginx-deb/usr/sbin/nginx
	if [ ! -x "$nginx" ]; then
		(cd "$work" && { apt-get download -qq nginx 2>/dev/null || { apt-get update -qq && apt-get download -qq nginx; }; } >/dev/null) ||
			{ echo "helm-test: cannot fetch the nginx package" >&2; exit 1; }
		dpkg -x "$work"/nginx_*.deb "$(pwd)/bin/nginx-deb"
	fi
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$work/key"
upstreams=
for h in 1 2; do
	port=$(free_port)
	mkdir -p "$work/h$h/home" && mkdir -m 700 "$work/h$h/run"
	HOME=$work/h$h/home W365_RUNTIME_DIR=$work/h$h/run W365_API_KEY_FILE=$work/key W365_ROUTE_NAME=w365-$((h - 1)) \
		"$W365_BIN" --virtual serve --http "127.0.0.1:$port" 2>"$work/h$h/log" &
	pids="$pids $!"
	upstreams="$upstreams${upstreams:+,}127.0.0.1:$port"
done
rport=$(free_port)
$HELM template w365 "$chart" --set auth.apiKey=x --set "router.port=$rport" --set "router.upstreams={$upstreams}" \
	--show-only templates/router.yaml >"$work/router.yaml"
sed -n '/nginx.conf: |/,/^---/p' "$work/router.yaml" | sed '1d;/^---/d;s/^    //' | sed "s|/tmp/|$work/|g" >"$work/nginx.conf"
"$nginx" -q -t -c "$work/nginx.conf" -p "$work"
"$nginx" -c "$work/nginx.conf" -p "$work" -g 'daemon off;' &
pids="$pids $!"
$GO run ./deploy/helm/routecheck -url "http://127.0.0.1:$rport/" -key-file "$work/key" -hosts 2 \
	alice bob carol dave || { cat "$work"/h*/log >&2; exit 1; }

echo "helm-test: ok"
