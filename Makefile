# w365 build, run and test. `make run` and `make test` install missing system
# packages with apt-get (as root, or through sudo) before they build.

GO      ?= go
BIN     := bin/w365
SUDO    := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE    ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
HOSTPKG := github.com/w365/w365/commands/host
LDFLAGS := -s -w -X $(HOSTPKG).version=$(VERSION) -X $(HOSTPKG).commit=$(COMMIT) -X $(HOSTPKG).date=$(DATE)
# Go's own DNS resolver and user lookup: nothing else needs libc, so the binary links
# statically and a one-shot command starts without the dynamic loader.
TAGS    := netgo,osusergo

# What w365 uses at run time, and what its tests and benchmarks add.
RUN_PKGS  := xvfb openbox dbus dbus-x11 at-spi2-core chromium tesseract-ocr tesseract-ocr-eng \
             bubblewrap python3 git
# Node.js and npm (for the sandbox's everyday commands) come with the Go machine image.
# wine64 and mingw run the Windows build's tests (test/wine). pcmanfm (GTK 2, with
# libatk-adaptor, its accessibility bridge), galculator, geany, atril, gnumeric, gucharmap and
# transmission-gtk (GTK 3), gnome-calculator and gnome-text-editor (GTK 4), featherpad, qpdfview,
# kcalc and keepassxc (Qt 5), LibreOffice Writer (its GTK 3 plugin: a splash screen before it
# registers) and Firefox are the real applications of the accessibility and agent-task tests;
# so are pluma and mate-calc (GTK 3), lxappearance (GTK 2), qbittorrent (Qt 5), gnome-clocks
# (GTK 4) and xedit (Xt, in x11-apps) of the second held-out round, gnome-characters (GTK 4,
# in GJS) of the tree's class-name test; qt5ct (Qt 5), yad (GTK 3),
# gpicview (GTK 2) and bitmap (Xt, in x11-apps) of the third; qalculate-gtk and abiword
# (GTK 3), xpdf (Motif), gnome-font-viewer (GTK 4) and lximage-qt (Qt 5) of the fourth;
# speedcrunch, kcharselect and qps (Qt 5), xfce4-taskmanager and gedit (GTK 3) and gv (Xaw)
# of the fifth; xcalc, xedit (x11-apps), xfontsel (x11-utils) and NEdit (Motif) of the Xt
# trees read through Editres; mtpaint (GTK 2), l3afpad (GTK 3), baobab (GTK 4) and juffed
# (Qt 5) of the sixth held-out round; NEdit (Motif), xcalc (Xaw, in x11-apps) and Xfe (FOX) of
# the seventh; Grace (Motif), DB Browser for SQLite (Qt 5), Evince and SciTE (GTK 3) of the
# eighth. Xfe and Xfwrite (FOX), NEdit, Dillo (FLTK), a JDK (Swing)
# and the Terminus bitmap fonts (OpenType bitmaps for Xft: as X core fonts, xfonts-terminus,
# they would change the font count xfontsel shows in real-blind2) draw the OCR benchmark's
# real-blind10 screens; rxvt-unicode, FLUID (FLTK), mgdiff (Motif), tcl-awthemes (Tk) and Geany
# draw real-blind11's; grpn and XBoard (GTK 2) in gtk2-engines' Industrial theme and GTK 2's
# own, tcl-ttkthemes (Tk), qt5-style-plugins (Qt 5's Plastique) and Emacs (Lucid) draw
# real-blind12's; xclock (x11-apps), rxvt-unicode, xterm, tcl-ttkthemes (Tk), qt5-style-plugins
# (Qt 5's Motif), LXAppearance in gtk2-engines' Crux (GTK 2), GNOME Text Editor (GTK 4) and
# Chromium draw real-blind13's; gv (Xaw3d), xditview (x11-apps), Grace (Motif), mtPaint in
# gtk2-engines' ThinIce (GTK 2), qt5-style-plugins (Qt 5's Cleanlooks), SciTE, AbiWord and Tk
# draw real-blind14's (its groff output is in testdata, groff is not needed). xfce4-terminal
# (VTE), TEA (Qt 5) and IDLE (Tk) are the desktop task suite's ninth round.
# Qt Linguist (linguist-qt6, Qt 6), git gui (Tk) and LibreOffice Calc are its tenth. Tk
# (wish) and the URW Type 1 fonts (the X server's scaled core fonts: Helvetica, Times,
# Bookman, ...) draw the OCR benchmark's held-out screens. HexChat is the session service a
# confinement test asks the session bus for (python3-dbus asks). Mercurial and darcs are the
# person's version control of the test that a call leaves no hook in a repository's .hg or _darcs.
TEST_PKGS := $(RUN_PKGS) xclip tmux xdotool imagemagick scrot python3-gi gir1.2-gtk-3.0 gir1.2-gtk-4.0 \
             python3-pyqt5 x11-apps x11-utils xterm mousepad sqlite3 vim rsync mercurial darcs wine64 gcc-mingw-w64-x86-64-win32 \
             featherpad zenity pcmanfm libatk-adaptor galculator qpdfview gnome-calculator geany gnome-text-editor atril \
             gnumeric gucharmap transmission-gtk kcalc keepassxc firefox-esr \
             libreoffice-writer libreoffice-gtk3 pluma mate-calc lxappearance qbittorrent gnome-clocks \
             tk fonts-urw-base35 qt5ct yad gpicview hexchat python3-dbus gnome-characters \
             qalculate-gtk abiword xpdf gnome-font-viewer lximage-qt \
             speedcrunch kcharselect qps xfce4-taskmanager gedit gv \
             xfe nedit dillo openjdk-17-jdk-headless openjdk-17-jre fonts-terminus-otb \
             mtpaint l3afpad baobab juffed rxvt-unicode fluid mgdiff tcl-awthemes \
             grpn xboard gtk2-engines tcl-ttkthemes qt5-style-plugins emacs-lucid \
             grace sqlitebrowser evince scite xfce4-terminal tea idle-python3.11 \
             linguist-qt6 git-gui libreoffice-calc

.PHONY: all build run serve test check bench deps-run deps-test clean fuzz release-check snapshot \
        package-test image image-test helm-test registry-check man docs docs-check

# Release and deployment tools are Go modules, built once per version and kept outside bin/
# (which `make clean` empties): building goreleaser or helm takes minutes.
TOOLS              ?= $(shell $(GO) env GOPATH)/bin/w365-tools
GORELEASER_VERSION := v2.15.1
GORELEASER         := $(TOOLS)/goreleaser-$(GORELEASER_VERSION)/goreleaser
HELM_VERSION       := v3.22.0
HELM               := $(TOOLS)/helm-$(HELM_VERSION)/helm
KUBECONFORM_VERSION := v0.8.0
KUBECONFORM        := $(TOOLS)/kubeconform-$(KUBECONFORM_VERSION)/kubeconform
# The Kubernetes release whose OpenAPI document (shipped in the k8s.io/kubernetes module)
# the chart's manifests are validated against.
KUBE_VERSION       := v1.34.4
# server.json is checked against the schema that the registry's own module embeds.
MCP_REGISTRY_VERSION := v1.8.9

all: build

# The linker writes its output through a memory mapping, which leaves the file cached in
# 4 KB pages; a copy written with write(2), as every installed binary is (cp, tar, a
# package), is cached in large folios, which exec maps in fewer steps: the copy starts
# ~2 ms sooner on this machine (perf: filemap_map_pages) until the kernel evicts and re-reads
# the linked file; make bench runs right after a build, so bin/ holds the copy.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(TAGS) -ldflags '$(LDFLAGS)' -o $(BIN).link ./cmd/w365
	install -m 0755 $(BIN).link $(BIN) && rm -f $(BIN).link

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
	@test -z "$$(gofmt -l cmd commands docs engine repl test testdata packaging deploy)" || { gofmt -l cmd commands docs engine repl test testdata packaging deploy; exit 1; }
	$(GO) vet ./...
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) build -o /dev/null ./cmd/w365

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzCheck$$' -fuzztime 20s -fuzzminimizetime 2s ./engine/sandbox
	$(GO) test -run '^$$' -fuzz '^FuzzCheckWindows$$' -fuzztime 20s -fuzzminimizetime 2s ./engine/sandbox

# The tool reference, docs/tools.md, from the tool definitions.
docs:
	$(GO) run ./docs/gen -o docs/tools.md

# Regenerates docs/tools.md and fails when that changed it, i.e. when the committed page is
# stale (in CI, a clean clone; outside a git checkout only the Go test in docs/gen guards).
docs-check: docs
	@if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
	  git diff --exit-code --stat -- docs/tools.md || { \
	    echo "docs/tools.md is stale: it is not what the tool definitions give. Run 'make docs' and commit docs/tools.md."; exit 1; }; \
	fi

# Every test against real components. Under CI=true a missing component fails. Most of an
# e2e test's time is waiting (a desktop, a browser, an application starting), so its tests run
# four at a time (docs/development.md#tests): one after another they took 23 min alone, 26.6 min
# on a shared 2-core machine (December 2026). The bound leaves room for a slower machine.
test: deps-test check docs-check build
	W365_TEST_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -parallel 4 -timeout 50m ./...
	$(MAKE) --no-print-directory fuzz
	$(MAKE) --no-print-directory helm-test
	$(MAKE) --no-print-directory registry-check

bench: deps-test build
	cd testdata/bench/peers && npm ci --no-audit --no-fund
	$(GO) run ./testdata/bench $(if $(BENCH_BEFORE),-before $(BENCH_BEFORE))
	@echo; echo "OCR word recall and time against the raw tesseract CLI (OMP_THREAD_LIMIT=1), per screen and per set:"
	CI=true W365_OCR_RUNS=5 $(GO) test -count=1 -timeout 60m -run 'TestRecall' -v ./engine/ocr | grep -E 'recall|missed|^(ok|FAIL)'
	@echo; echo "OCR time as the amount of text on a 1920x1080 screen grows:"
	CI=true $(GO) test -count=1 -run '^$$' -bench 'BenchmarkGrowth' -benchtime 5x ./engine/ocr | grep -E 'Benchmark|^(ok|FAIL)'
	@echo; echo "OCR time on the dense screens with two busy loops beside it, each in a session of its own (NAME/reused: a call after the first on the unchanged screen, as analyze_screen reuses its readings):"
	CI=true $(GO) test -count=1 -run '^$$' -bench 'BenchmarkBusy' -benchtime 5x ./engine/ocr | grep -E 'Benchmark|^(ok|FAIL)'
	@echo; echo "Agent tasks (test/tasks), every task; the browser ones beside playwright-mcp:"
	CI=true W365_TEST_BIN=$(CURDIR)/$(BIN) $(GO) test -count=1 -timeout 40m -run 'Tasks' -v ./test/tasks -args -tasks.all 2>&1 | sed -n '/^--- FAIL/p; /^    tasks_test.go/p; /^task results/,$$p'
	@echo; echo "Accessibility tree walk of a ~300-node Chromium window:"
	CI=true $(GO) test -count=1 -run '^$$' -bench 'BenchmarkChromiumTree' -benchtime 20x ./engine/desktop/x11/atspi | grep -E 'Benchmark|^(ok|FAIL)'

clean:
	rm -rf bin man

# Man pages for every command, from the command tree (man/man1/w365*.1).
man:
	$(GO) run ./docs/man --dir man/man1

$(GORELEASER):
	GOBIN=$(@D) $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
$(HELM):
	GOBIN=$(@D) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)
$(KUBECONFORM):
	GOBIN=$(@D) $(GO) install github.com/yannh/kubeconform/cmd/kubeconform@$(KUBECONFORM_VERSION)

# Validates .goreleaser.yaml with the pinned goreleaser.
release-check: $(GORELEASER)
	$(GORELEASER) check

# Every release artifact (archives, .deb, .rpm, checksums) into dist/, published nowhere.
# goreleaser reads the commit only once it has found a remote: a clone without one gets
# the project's URL through git's environment configuration.
snapshot: $(GORELEASER)
	if git remote | grep -q .; then $(GORELEASER) release --snapshot --clean; else \
	  GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/w365/w365.git \
	  $(GORELEASER) release --snapshot --clean; fi

# Installs the snapshot's .deb with apt-get, checks it, removes it (root: changes the system).
package-test:
	@ls dist/w365_*_amd64.deb >/dev/null 2>&1 || $(MAKE) --no-print-directory snapshot
	W365_COMMIT=$$(sed -n 's/.*"commit":"\([0-9a-f]*\)".*/\1/p' dist/metadata.json) sh packaging/test-deb.sh dist/w365_*_amd64.deb

# The container image from the snapshot's .deb on a debootstrapped Debian base.
image:
	@ls dist/w365_*_amd64.deb >/dev/null 2>&1 || $(MAKE) --no-print-directory snapshot
	sh deploy/image/build.sh dist/w365_*_amd64.deb

# Runs the image and drives it over MCP/HTTP with a key from a secret file.
image-test: image
	sh deploy/image/test.sh

# helm lint and helm template on the chart, the rendered manifests against the Kubernetes
# schemas (offline: made from the OpenAPI document in the module cache), and the chart's
# router in front of two real hosts.
helm-test: build $(HELM) $(KUBECONFORM)
	HELM=$(HELM) KUBECONFORM=$(KUBECONFORM) KUBE_VERSION=$(KUBE_VERSION) GO=$(GO) W365_BIN=$(CURDIR)/$(BIN) \
	  sh deploy/helm/test.sh

# server.json against the MCP registry schema its $$schema names (offline, from the module cache).
registry-check:
	@dir=$$(cd / && $(GO) mod download -json github.com/modelcontextprotocol/registry@$(MCP_REGISTRY_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	schema=$$(sed -n 's|.*"\$$schema": *"https://static.modelcontextprotocol.io/schemas/\([^/]*\)/server.schema.json".*|\1|p' server.json); \
	test -n "$$schema" || { echo "server.json names no registry schema"; exit 1; }; \
	$(GO) run ./packaging/schemacheck -schema "$$dir/internal/validators/schemas/$$schema.json" server.json
