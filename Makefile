# w365 build, run and test. `make run` and `make test` install missing system
# packages with apt-get (as root, or through sudo) before they build.

GO      ?= go
BIN     := bin/w365
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/w365/w365/commands/host.version=$(VERSION)
# Go's own DNS resolver and user lookup: nothing else needs libc, so the binary links
# statically and a one-shot command starts without the dynamic loader.
TAGS    := netgo,osusergo

# What w365 uses at run time, and what its tests and benchmarks add.
RUN_PKGS  := xvfb openbox dbus dbus-x11 at-spi2-core chromium tesseract-ocr tesseract-ocr-eng \
             bubblewrap xclip python3 git
# Node.js and npm (for the sandbox's everyday commands) come with the Go machine image.
TEST_PKGS := $(RUN_PKGS) tmux xdotool imagemagick scrot python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0 \
             python3-pyqt5 x11-apps x11-utils xterm rsync

.PHONY: all build run serve test check bench deps-run deps-test clean fuzz release-check

all: build

build:
	$(GO) build -trimpath -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/w365

# Installs only the Debian packages that are missing.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
endef

deps-run:
	$(call apt_install,$(RUN_PKGS))

deps-test:
	$(call apt_install,$(TEST_PKGS))

# The REPL on an embedded virtual desktop (Xvfb + openbox + accessibility bus).
run: deps-run build
	./$(BIN) --virtual repl

# MCP over streamable HTTP on loopback; set W365_API_KEY to require a key.
serve: deps-run build
	./$(BIN) --virtual serve --http 127.0.0.1:8365

# Formatting, and vet for Linux and for the platforms that must keep building (the Windows
# binary must also link: a later backend runs it under wine).
check:
	@test -z "$$(gofmt -l cmd commands engine repl testdata)" || { gofmt -l cmd commands engine repl testdata; exit 1; }
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) build -o /dev/null ./cmd/w365

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime 20s ./engine/sandbox

# Every test against real components. Under CI=true a missing component fails.
test: deps-test check build
	W365_TEST_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz

bench: deps-test build
	cd testdata/bench/peers && npm ci --no-audit --no-fund
	$(GO) run ./testdata/bench
	@echo; echo "OCR word recall and time against the raw tesseract CLI (OMP_THREAD_LIMIT=1), per screen and per set:"
	CI=true $(GO) test -count=1 -run 'TestRecall' -v ./engine/ocr | grep -E 'recall|missed|^(ok|FAIL)'
	@echo; echo "OCR time as the amount of text on a 1920x1080 screen grows:"
	CI=true $(GO) test -count=1 -run '^$$' -bench 'BenchmarkGrowth' -benchtime 5x ./engine/ocr | grep -E 'Benchmark|^(ok|FAIL)'
	@echo; echo "Accessibility tree walk of a ~300-node Chromium window:"
	CI=true $(GO) test -count=1 -run '^$$' -bench 'BenchmarkChromiumTree' -benchtime 20x ./engine/a11y | grep -E 'Benchmark|^(ok|FAIL)'

clean:
	rm -rf bin

# Validates .goreleaser.yaml with the pinned goreleaser (builds it first: minutes).
release-check:
	$(GO) run github.com/goreleaser/goreleaser/v2@v2.15.1 check
