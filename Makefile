# elicitray — `make demo` to try it, `make test` to test it. Both install
# what is missing first (Debian packages, npm packages for the test peers).

SHELL := /bin/bash
export LANG := en_US.UTF-8
export CGO_ENABLED := 1
# Builds that do not record the checkout's directory: the binary names no
# path of the machine it was built on, and Go's build cache serves a clone
# in another directory (CI's fresh copy) as it serves this one.
export GOFLAGS := -trimpath -tags=no_animations $(GOFLAGS)
GO ?= go
BIN := bin/elicitray
# Debian packages: to build (Fyne: cgo, OpenGL, X11), and to test (windows
# under Xvfb driven by xdotool, screenshots, a private session bus, the
# validators of the launcher entry and the AppStream metadata, and a font
# with Chinese glyphs for the windows in Chinese: Fyne's theme font is
# Latin, and it draws other scripts with the system's fonts).
BUILD_PACKAGES := gcc pkg-config libgl1-mesa-dev xorg-dev
TEST_PACKAGES := $(BUILD_PACKAGES) xvfb xauth xdotool imagemagick dbus desktop-file-utils appstream gcc-mingw-w64-x86-64 \
  fonts-droid-fallback wine wine64 nsis
# -noreset: an X server resets when its last client leaves, and a client
# that connects meanwhile is cut off ("broken pipe"); tests come and go.
XVFB := xvfb-run -a -s "-screen 0 1280x1024x24 -noreset"

# The version `elicitray version` prints: the latest v* tag and how far past
# it (git describe), or 0.1.0-dev and the commit where there is no tag.
VERSION ?= $(shell v=$$(git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null) && echo "$${v#v}" || \
  echo "0.1.0-dev+$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)")
# Computed once: every artifact of one make run carries the same version.
VERSION := $(VERSION)
LDFLAGS := -X github.com/elicitray/elicitray/app.Version=$(VERSION)

# make install: a user install into ~/.local by default; PREFIX=/usr/local
# (as root) for everyone, DESTDIR for staging a package. INSTALL_BIN installs
# that binary instead of building one.
PREFIX ?= $(HOME)/.local
APP_ID := io.github.elicitray
ICON_SIZES := 16 22 24 32 48 64 128 256 512
# Every file make install puts under PREFIX, which make uninstall removes.
INSTALLED := bin/elicitray \
  share/applications/$(APP_ID).desktop \
  share/metainfo/$(APP_ID).metainfo.xml \
  share/icons/hicolor/scalable/apps/$(APP_ID).svg \
  $(foreach s,$(ICON_SIZES),share/icons/hicolor/$(s)x$(s)/apps/$(APP_ID).png)
# The directories install may create, deepest first: uninstall removes the
# ones left empty.
INSTALL_DIRS := $(sort $(foreach f,$(INSTALLED),$(dir $(f)))) share/icons/hicolor/scalable \
  $(foreach s,$(ICON_SIZES),share/icons/hicolor/$(s)x$(s)) share/icons/hicolor share/icons share

.PHONY: all build cross-windows package-windows test-windows windows-test-build deps deps-build deps-system deps-npm apt-install test check vet conformance demo screenshots bench bench-history bench-ui install uninstall package version icons clean

all: build

build: deps-build
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

# The binary, the launcher entry (it opens History; its actions are the
# tray menu's: Settings, Pause, Resume, Quit), the icons and the AppStream metadata. The entry names the
# binary by its full path: a session's PATH often lacks ~/.local/bin.
install: $(if $(INSTALL_BIN),,build)
	@d='$(DESTDIR)$(PREFIX)'; set -e; \
	install -Dm755 '$(or $(INSTALL_BIN),$(BIN))' "$$d/bin/elicitray"; \
	install -d "$$d/share/applications" "$$d/share/metainfo" "$$d/share/icons/hicolor/scalable/apps"; \
	sed -e 's|@BINDIR@|$(PREFIX)/bin|g' packaging/linux/$(APP_ID).desktop > "$$d/share/applications/$(APP_ID).desktop"; \
	sed -e 's|@VERSION@|$(VERSION)|; s|@DATE@|'"$$(git log -1 --format=%cs 2>/dev/null || date +%F)"'|' \
	  packaging/linux/$(APP_ID).metainfo.xml > "$$d/share/metainfo/$(APP_ID).metainfo.xml"; \
	chmod 644 "$$d/share/applications/$(APP_ID).desktop" "$$d/share/metainfo/$(APP_ID).metainfo.xml"; \
	install -m644 assets/icon.svg "$$d/share/icons/hicolor/scalable/apps/$(APP_ID).svg"; \
	for s in $(ICON_SIZES); do \
	  install -Dm644 packaging/linux/icons/$${s}x$${s}/$(APP_ID).png "$$d/share/icons/hicolor/$${s}x$${s}/apps/$(APP_ID).png"; done; \
	if [ -z '$(DESTDIR)' ] && [ -f "$$d/share/icons/hicolor/icon-theme.cache" ]; then \
	  gtk-update-icon-cache -q "$$d/share/icons/hicolor" 2>/dev/null || true; fi; \
	echo "installed elicitray $(VERSION) into $$d (bin/elicitray; the launcher entry opens History)"

# Before the files go, as the Windows uninstaller does: every host's
# servers get their own commands back (`hosts unwrap --all`), or they would
# fail to start once the binary is gone, and the start-at-login entry that
# starts this binary goes (one that starts another elicitray stays). Not
# for a staged copy (DESTDIR), nor with KEEP_HOSTS=1.
uninstall:
	@d='$(DESTDIR)$(PREFIX)'; \
	if [ -z '$(DESTDIR)' ] && [ -x "$$d/bin/elicitray" ]; then \
	  if [ -z '$(KEEP_HOSTS)' ] && ! "$$d/bin/elicitray" hosts unwrap --all; then \
	    echo "make uninstall: stopped, nothing removed: the hosts above still run their servers through elicitray, and would fail to start them without it. Fix what it says and run make uninstall again, or uninstall anyway with KEEP_HOSTS=1." >&2; exit 1; fi; \
	  entry="$${XDG_CONFIG_HOME:-$$HOME/.config}/autostart/$(APP_ID).desktop"; \
	  if grep -qxF "TryExec=$$d/bin/elicitray" "$$entry" 2>/dev/null; then \
	    rm -f "$$entry"; echo "removed $$entry, which started elicitray at login"; fi; \
	fi; \
	for f in $(INSTALLED); do rm -f "$$d/$$f"; done; \
	for x in $(INSTALL_DIRS); do [ -d "$$d/$$x" ] && rmdir --ignore-fail-on-non-empty "$$d/$$x"; done; \
	if [ -z '$(DESTDIR)' ] && [ -f "$$d/share/icons/hicolor/icon-theme.cache" ]; then \
	  gtk-update-icon-cache -q "$$d/share/icons/hicolor" 2>/dev/null || true; fi; \
	echo "removed elicitray from $$d"

# make package: the Linux release artifacts in dist/, of this build (its
# version stamped in): the tarball `fyne package -os linux` makes (with its
# own Makefile to install it), and a .deb made with nfpm from what
# `make install` stages. Both tools are pinned and run with `go run`.
FYNE_TOOL := fyne.io/tools/cmd/fyne@v1.7.4
NFPM_TOOL := github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
DIST := dist
# Debian's form of VERSION: a development build sorts before its release
# (~dev), commits after a tag after it (+N.gHASH).
DEB_VERSION = $(shell echo '$(VERSION)' | sed -e 's/-dev/~dev/' -e 's/-/+/' -e 's/-/./g')
package: build
	rm -rf $(DIST) && mkdir -p $(DIST)
	$(MAKE) --no-print-directory install DESTDIR=$(abspath $(DIST))/stage PREFIX=/usr INSTALL_BIN=$(BIN)
	@# fyne package rewrites FyneApp.toml (its build number, without the
	@# comments): the file is put back as it was, whatever happens.
	cp FyneApp.toml $(DIST)/FyneApp.toml.keep; \
	$(GO) run $(FYNE_TOOL) package --os linux --exe $(abspath $(BIN)) --release; st=$$?; \
	cp $(DIST)/FyneApp.toml.keep FyneApp.toml && rm $(DIST)/FyneApp.toml.keep; exit $$st
	mv elicitray.tar.xz $(DIST)/elicitray-$(VERSION)-linux-$$($(GO) env GOARCH).tar.xz
	@# nfpm reads the staged files from the directory it runs in.
	cd $(DIST) && DEB_VERSION='$(DEB_VERSION)' DEB_ARCH=$$($(GO) env GOARCH) \
	  $(GO) run $(NFPM_TOOL) package --config $(CURDIR)/packaging/nfpm.yaml --packager deb --target .
	rm -rf $(DIST)/stage
	@ls -1 $(DIST)

# The version make stamps into the binary and the AppStream metadata.
version:
	@echo '$(VERSION)'

# The PNG icons, from assets/icon.svg (ImageMagick); committed, so that
# installing needs no image tools.
icons:
	for s in $(ICON_SIZES); do mkdir -p packaging/linux/icons/$${s}x$${s}; \
	  convert -background none -density $$((384 * s / 256)) assets/icon.svg -resize $${s}x$${s} -strip \
	    PNG32:packaging/linux/icons/$${s}x$${s}/$(APP_ID).png; done

deps-build:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(BUILD_PACKAGES)"

deps-system:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(TEST_PACKAGES)"

# Installs whichever of $(PACKAGES) is missing (with sudo when not root).
apt-install:
	@command -v $(GO) >/dev/null || { echo "elicitray needs Go 1.26 or newer: https://go.dev/dl/"; exit 1; }
	@missing=""; for p in $(PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; fi

# The test peers, pinned by the lockfile: the reference server the end-to-end
# tests wrap, the TypeScript SDK that testdata/npm/tshost.mjs hosts with, the
# MCP Inspector, the official conformance suite, and Node 22 for the Inspector
# and the suite (they need Node >= 22; the rest runs on the system's Node >= 20). package.json allows the install script of
# "node" alone (it fetches the platform's binary, also an npm package), and holds
# vite, a dependency of the Inspector's web UI, at 8.3.8: 8.4 adds an optional
# dependency the registry does not serve, and npm ci then calls the lockfile stale.
#
# A finished install is kept in the user's cache, named by the hash of the
# two files and Node's version, and a fresh checkout (CI's) takes it from
# there as hard links in a second instead of installing again (some 25 s of
# CPU on two cores). Nothing writes into node_modules after the install.
NPM_KEEP = $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/elicitray/node_modules-$(shell cat testdata/npm/package.json \
  testdata/npm/package-lock.json | sha256sum | cut -c1-16)-$(shell node --version 2>/dev/null)
deps-npm: testdata/npm/node_modules/.package-lock.json
testdata/npm/node_modules/.package-lock.json: testdata/npm/package.json testdata/npm/package-lock.json
	@keep='$(NPM_KEEP)'; if [ -f "$$keep/.package-lock.json" ]; then \
	  rm -rf testdata/npm/node_modules && { cp -al "$$keep" testdata/npm/node_modules 2>/dev/null || \
	    cp -a "$$keep" testdata/npm/node_modules; } && echo "testdata/npm/node_modules: the install kept in $$keep"; \
	else (cd testdata/npm && npm ci --no-audit --no-fund) || exit 1; \
	  echo "testdata/npm: installed (npm's EBADENGINE warnings name the system's Node; the packages that need Node 22 run on the node@22 this install holds)"; \
	  mkdir -p "$$(dirname "$$keep")" && rm -rf "$$keep.tmp"; \
	  if cp -al testdata/npm/node_modules "$$keep.tmp" 2>/dev/null; then mv "$$keep.tmp" "$$keep"; else rm -rf "$$keep.tmp"; fi; fi
	@touch $@

deps: deps-system deps-npm

# go vet for the three OSes: everything on Linux (cgo), and for each OS
# without cgo every package that links no Fyne there, its tests included
# (Fyne and GLFW need cgo): all but those bridge/layering_test.go lets draw
# windows, and app/e2e, whose tests run the app.
# Windows's cgo packages are vetted too, with mingw-w64 (cross-windows);
# macOS's cannot be without its SDK.
fyne_free = $(shell CGO_ENABLED=0 GOOS=$(1) $(GO) list -e -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... | \
  awk '{p=$$1} / fyne\.io\//{bad[p]=1} {all[p]=1} END {for (p in all) if (!(p in bad) && p !~ /(\.test|_test)$$/) print p}')
vet: deps-build
	$(GO) vet ./...
	CGO_ENABLED=0 GOOS=linux $(GO) vet $(call fyne_free,linux)
	CGO_ENABLED=0 GOOS=darwin $(GO) vet $(call fyne_free,darwin)
	CGO_ENABLED=0 GOOS=windows $(GO) vet $(call fyne_free,windows)

# The whole app cross-built for Windows (amd64) with Debian's mingw-w64,
# into bin/elicitray.exe, and vetted there with cgo (app/'s tests are
# Linux's: see app/doc.go). Nothing of it runs here. The first build
# compiles Fyne and GLFW for Windows: minutes on two cores; Go's build
# cache keeps them.
# The binary carries its icon, manifest and version (packaging/windows/
# elicitray.rc, compiled by mingw-w64's windres into a .syso that go build
# links in; the .syso is removed after the build, so no stale one is
# linked into a later one).
comma := ,
WINDOWS_ENV := CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc
# Windows' form of VERSION: four numbers, the leading x.y.z and 0.
WIN_NUMVERSION = $(shell echo '$(VERSION)' | sed -E 's/^([0-9]+)\.([0-9]+)\.([0-9]+).*/\1.\2.\3.0/')
WIN_RES := bin/windows
cross-windows:
	@$(MAKE) --no-print-directory apt-install PACKAGES="gcc-mingw-w64-x86-64"
	@mkdir -p $(WIN_RES) && cp packaging/windows/elicitray.ico $(WIN_RES)/
	sed -e 's|@VERSION@|$(VERSION)|g; s|@NUMCOMMAS@|$(subst .,$(comma),$(WIN_NUMVERSION))|g' \
	  packaging/windows/elicitray.rc > $(WIN_RES)/elicitray.rc
	sed -e 's|@NUMVERSION@|$(WIN_NUMVERSION)|' packaging/windows/elicitray.manifest > $(WIN_RES)/elicitray.manifest
	cd $(WIN_RES) && x86_64-w64-mingw32-windres -O coff -o ../../elicitray_windows_amd64.syso elicitray.rc
	$(WINDOWS_ENV) $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN).exe .; st=$$?; rm -f elicitray_windows_amd64.syso; exit $$st
	$(WINDOWS_ENV) $(GO) vet ./...

# make package-windows: the Windows installer (packaging/windows/
# installer.nsi, NSIS from Debian's packages) of this build, in dist/: a
# per-user install with a Start-menu entry, an uninstaller in Settings >
# Apps and an optional start at sign-in.
WIN_SETUP = $(DIST)/elicitray-$(VERSION)-windows-amd64-setup.exe
# $(call makensis,COMPRESSOR,OUTFILE)
makensis = makensis -V2 -DVERSION='$(VERSION)' -DNUMVERSION='$(WIN_NUMVERSION)' -DCOMPRESSOR='$(1)' \
  -DEXE='$(abspath $(BIN).exe)' -DOUTFILE='$(abspath $(2))' packaging/windows/installer.nsi
package-windows: cross-windows
	@$(MAKE) --no-print-directory apt-install PACKAGES="nsis"
	@mkdir -p $(DIST)
	$(call makensis,/SOLID lzma,$(WIN_SETUP))
	@echo '$(WIN_SETUP)'

# The Windows build's tests, under Wine (.ci/test-windows says what runs,
# what is skipped and why): the named-pipe hub API, paths, configs of the
# hosts, history's files, and the rest that builds without cgo; the app
# end to end; and its installer, made as package-windows makes it but
# with zlib (7 s, where lzma takes 32).
WINE_TESTS := ELICITRAY_WINE_EXE='$(abspath $(BIN).exe)' ELICITRAY_WINE_SETUP='$(abspath $(WIN_RES)/elicitray-test-setup.exe)' .ci/test-windows
test-windows: windows-test-build
	$(WINE_TESTS)
windows-test-build: cross-windows
	@$(MAKE) --no-print-directory apt-install PACKAGES="wine wine64 gcc-mingw-w64-x86-64 nsis"
	$(call makensis,zlib,$(WIN_RES)/elicitray-test-setup.exe)

# Every test on this system: under Xvfb with a private session bus, so no
# desktop is needed and no bus outlives the run. The end-to-end tests that
# run in parallel (newParallelDesktop in app/e2e) start an Xvfb and a bus of
# their own; most of their time is spent waiting for processes and
# windows, so four run at once (-parallel) on two cores. The test binaries
# and the binaries the tests build are linked without DWARF (-w): nobody
# debugs them, and it takes a third off every link.
# The Windows build's tests under Wine are make test-windows; CI
# (.ci/run) runs the two side by side.
LINUX_TESTS := GOFLAGS='$(GOFLAGS) -ldflags=-w' $(XVFB) dbus-run-session -- $(GO) test -count=1 -parallel 4 -timeout 20m ./...
test: deps vet
	$(LINUX_TESTS)
	@echo "make test: every test passed here; the Windows build's are make test-windows (CI runs both)"

# The inner loop, in well under two minutes on a warm build cache: go vet
# for the three OSes (make vet) and the short tier, every package's tests
# under -short: no elicitray process, no window, none of the long
# randomised runs (each such test says why it skips). make test runs all.
check: vet
	$(GO) test -short ./...

# The official MCP conformance suite (@modelcontextprotocol/conformance, pinned
# in testdata/npm, run on the pinned Node 22): every client scenario, with
# `elicitray conformance-host` as the client command (an mcp-go host whose
# server is `elicitray wrap --url`), in a private ELICITRAY_HOME whose config
# gives the server the rule accept-defaults-or-cancel; then the results table
# (the README's). `make test` runs the two elicitation scenarios, which must pass.
conformance: deps
	@mkdir -p bin
	ELICITRAY_CONFORMANCE=all ELICITRAY_CONFORMANCE_REPORT=$(CURDIR)/bin/conformance.md ELICITRAY_CONFORMANCE_RESULTS=$(CURDIR)/bin/conformance \
	  $(XVFB) dbus-run-session -- $(GO) test -count=1 -timeout 60m -run '^TestConformance$$' ./app/e2e/
	@cat bin/conformance.md

# Start the hub and let the built-in host call the built-in demo server's
# tools through `elicitray wrap`, in both protocol eras: every tool at
# 2026-07-28, then the change-approval flow (request_change) at 2025-11-25.
# Answer the windows as they come, then see the decisions with
# `bin/elicitray history list` or tray → History; each request_change result
# names the audit log it wrote. Without DISPLAY (a terminal over ssh) it
# finds the desktop session itself, or says why it cannot.
demo: build
	$(BIN) demo
	$(BIN) history list --limit 10

# Screenshots of real windows under Xvfb, for the README (docs/*.png), the
# Chinese ones (docs/zh-*.png) among them, and doctor's report in Chinese
# (docs/zh-doctor.txt), run in a home of its own so that it names no host
# config of yours. LANG alone chooses the language: Fyne's lang reads the
# variables itself, so no libc locale needs generating.
screenshots: deps build
	ELICITRAY_SCREENSHOTS=$(CURDIR)/docs $(XVFB) dbus-run-session -- $(GO) test -count=1 -run 'TestEndToEndEverything|TestEndToEndURL|TestEndToEndSafety|TestHistoryWindowOnDesktop|TestEndToEndRemember|TestEndToEndLastAnswersNeverDecide|TestEndToEndRightToLeft|TestWindowsInChineseOnDesktop' ./app/e2e/
	h=$$(mktemp -d); $(XVFB) dbus-run-session -- env HOME=$$h ELICITRAY_HOME=$$h/elicitray LANG=zh_CN.UTF-8 LC_ALL= LC_MESSAGES= LANGUAGE= \
	  $(BIN) doctor > docs/zh-doctor.txt; st=$$?; rm -rf $$h; [ $$st -le 1 ]

# Every measure of issue 12 in one run (bench/run, through the built binary):
# relay throughput against cat, peak RSS, added round trip, prompt window
# latency and the idle hub and wrapper (under Xvfb with a private session bus,
# like make test), and the history benchmarks; the table goes to stdout and
# into bench/README.md. BENCH_FLAGS passes flags on (e.g. -only throughput);
# ELICITRAY_BENCH_RECORDS=100000 makes the history smaller.
bench:
	@$(MAKE) --no-print-directory apt-install PACKAGES="$(TEST_PACKAGES) time"
	$(XVFB) dbus-run-session -- $(GO) run ./bench/run -readme bench/README.md $(BENCH_FLAGS)

# The history benchmark: a history of 1,000,000 realistic records, built
# once in a temporary directory, then the insert rate, the first page,
# filters, free-text search, counts and bytes per record on disk.
# ELICITRAY_BENCH_RECORDS=100000 makes a smaller history.
bench-history:
	@command -v $(GO) >/dev/null || { echo "elicitray needs Go 1.26 or newer: https://go.dev/dl/"; exit 1; }
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 30m ./history/

# The prompt benchmarks at the form limits (issue 10): opening a window with
# a 10,000-choice list and with a 500-field form, filtering the list, a key
# typed in the big form; and parsing a 10,000-choice schema.
bench-ui:
	@command -v $(GO) >/dev/null || { echo "elicitray needs Go 1.26 or newer: https://go.dev/dl/"; exit 1; }
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 2 ./ui/
	$(GO) test -run '^$$' -bench ParseTitledChoices -benchtime 20x -count 2 ./bridge/elicit/

clean:
	rm -rf bin $(DIST)
