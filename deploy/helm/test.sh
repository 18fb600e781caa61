#!/bin/sh
# helm lint and helm template on the chart, and every rendered manifest against the
# Kubernetes schemas of KUBE_VERSION, made offline from the OpenAPI document that the
# k8s.io/kubernetes module ships. Run by `make helm-test` (part of `make test`).
set -eu
: "${HELM:?}" "${KUBECONFORM:?}" "${KUBE_VERSION:?}"
GO=${GO:-go}
chart=deploy/helm/w365
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

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
  liveViewPort: 8366
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
grep -q 'hash $w365_route consistent' "$work/minimal.out.yaml"
grep -q 'w365-2.w365-hosts.agents.svc.cluster.local:8365 resolve' "$work/full.out.yaml"
grep -q -- '--keys-file' "$work/full.out.yaml"
grep -q 'server 10.0.0.2:8365;' "$work/external.out.yaml"
! grep -q 'kind: Deployment' "$work/norouter.out.yaml"
# Without a key the chart refuses to render (w365 would refuse to start).
if $HELM template w365 "$chart" >/dev/null 2>"$work/err"; then
	echo "helm-test: the chart rendered without a key" >&2
	exit 1
fi
grep -q 'without a key' "$work/err"

echo "helm-test: ok"
