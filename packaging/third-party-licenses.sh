#!/bin/sh
# Writes the license texts of everything linked into w365 (the Go runtime and standard
# library, and every module the linux and windows binaries import) to $1, so that archives
# and packages carry the notices those licenses ask binary distributions to keep.
# One dependency ships an Apache NOTICE file (go.yaml.in/yaml/v3): NOTICE at the root repeats it.
set -eu
out=${1:-bin/pkg/THIRD_PARTY_LICENSES}
go=${GO:-go}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for os in linux windows; do
	GOOS=$os $go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}' ./cmd/w365
done | sort -u >"$tmp"
{
	echo "w365 includes the following third-party software."
	echo
	echo "================================================================================"
	echo "Go (the runtime and standard library) $($go env GOVERSION)"
	echo "================================================================================"
	cat "$($go env GOROOT)/LICENSE"
	while read -r path version dir; do
		found=
		# Any case: some modules ship "license" (github.com/soniakeys/quant).
		for f in $(find "$dir" -maxdepth 1 -type f \( -iname 'LICENSE*' -o -iname 'LICENCE*' -o -iname 'COPYING*' -o -iname 'NOTICE*' \) | sort); do
			found=1
			echo
			echo "================================================================================"
			echo "$path $version ($(basename "$f"))"
			echo "================================================================================"
			cat "$f"
		done
		if [ -z "$found" ]; then
			echo "third-party-licenses: $path $version has no license file" >&2
			exit 1
		fi
	done <"$tmp"
} >"$out"
