# SPDX-License-Identifier: GPL-2.0-only
# fuse-backport: top-level targets. See README.md and docs/

# The kernel the demo and the VM suites boot by default: Debian 12's
# bookworm-backports 6.12 (FUSE built in, renamed flavor).
DEFAULT_KVER := 6.12.95+deb12-amd64
# The tier make check runs, as data (tests/tiers/, docs/testing.md): the
# default one, or the full one with FB_CHECK_FULL=1. Its header packages are
# installed on the host (the build matrix's host kernels and DKMS's); its
# kernels boot in the VM sections.
TIER := $(if $(filter 1,$(FB_CHECK_FULL)),full,default)
tier = $(shell sed -n 's/^$(1)[[:space:]][[:space:]]*//p' tests/tiers/$(TIER) | head -n 1)
MATRIX_HEADERS := $(call tier,headers)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
SERIES ?= all
VM_KVERS ?= $(call tier,vm-kernels)
# Every base (backports/<base>/pin), and the one serving KVER by its series
# (dkms.conf decides, through scripts/flavor.sh) when KVER is given; BASE=
# overrides it. Without KVER, and for a KVER outside every base (whose build
# then says so), base 6.12.
BASES := $(patsubst backports/%/pin,%,$(wildcard backports/*/pin))
ifeq ($(origin KVER),command line)
BASE ?= $(or $(word 1,$(shell bash scripts/flavor.sh --base $(KVER) $(KDIR) 2>/dev/null)),6.12)
else
BASE ?= 6.12
endif
TREE := src/upstream-$(BASE)

ifeq ($(SERIES),none)
SRC := $(TREE)-unpatched
BUILD := build/$(KVER)-unpatched
else
SRC := $(TREE)
BUILD := build/$(KVER)
endif

.PHONY: help all deps deps-test import import-all modules check-build check-tools check-vm check-debug \
	check check-red bench bench-ab bench-pool demo dkms-install checkpatch clean distclean \
	deps-pkg deb rpm kmod-deb repo repo-promote repo-rollback repo-status not-in-tmp test-progs \
	follow

all: modules ## build: the default: modules

# `make help`: the targets by pipeline stage, from the "## STAGE: what"
# comment on each target's line (dev/make-help.sh; tests/host-scripts/make-help.sh
# checks that every .PHONY target has one).
help: ## docs: this list
	@sh dev/make-help.sh $(firstword $(MAKEFILE_LIST))

deps: ## build: install the build's Debian packages and the matrix's headers (dev/deps.sh)
	sh dev/deps.sh build $(MATRIX_HEADERS)

deps-test: ## tests: install what make check needs (dev/deps.sh test)
	sh dev/deps.sh test $(MATRIX_HEADERS)

import: ## import: the pinned base's fs/fuse, patched, into src/upstream-BASE (dev/import.sh)
	OUT=$(CURDIR)/$(SRC) SERIES=$(SERIES) sh dev/import.sh $(BASE)

# Every base's generated tree (the build matrix and the package need them all).
import-all: ## import: every base's generated tree
	@for b in $(BASES); do \
		OUT=$(CURDIR)/src/upstream-$$b SERIES=all sh dev/import.sh $$b || exit 1; \
	done

modules: import ## build: our module for KVER against KDIR, into build/KVER (scripts/build.sh)
	SRC=$(CURDIR)/$(SRC) BUILD=$(CURDIR)/$(BUILD) sh scripts/build.sh $(KVER) $(KDIR)

# Each base against Debian's newest linux-source of its series (dev/follow.sh):
# the same fs/fuse is recorded in the pin (FUSE_CURRENT_TO), another one is
# rebased onto, changelogs and build matrix included. FOLLOW=--check: report only.
follow: ## pin: each base against Debian's newest linux-source of its series (dev/follow.sh)
	sh dev/follow.sh $(FOLLOW)

check-build: import-all ## build: the build matrix over Debian's headers (dev/check-build.sh)
	FB_WERROR=0 sh dev/check-build.sh

# Every C test helper, in one build (tests/Makefile); the VM runner, bench,
# the demo and the host tests all build them through it.
test-progs: ## tests: build every C test helper (tests/Makefile)
	$(MAKE) -s -C tests

check-tools: ## tests: the tooling's own tests on the host (tests/host-scripts/run.sh)
	sh tests/host-scripts/run.sh

# The VM gets a fresh /tmp of its own: a checkout under the host's /tmp is
# invisible in it.
not-in-tmp: ## tests: refuse a checkout under /tmp, which the VM cannot see
	@sh tests/vm/not-in-tmp.sh make

check-vm: not-in-tmp ## tests: the VM suites SUITES on KVER (tests/vm/run-suites.sh)
	sh tests/vm/run-suites.sh $(KVER) $(SUITES)

# The suites on a lockdep/KASAN/kmemleak/failslab kernel built from the pinned base (once per
# machine, under /var/cache/fuse-backport/debug-kernel): tests/debug/run.sh.
check-debug: not-in-tmp deps-test ## tests: the suites on a lockdep/KASAN debug kernel (tests/debug/run.sh)
	sh tests/debug/run.sh $(SUITES)

check: deps-test ## tests: every section of make check (tests/check.sh)
	FB_VM_KVERS="$(VM_KVERS)" sh tests/check.sh

# The red knobs as data (tests/red/knobs): with each fault in, its check
# must go red for the reason given there and no other (tests/red/run.sh;
# KNOBS= narrows, FB_CHECK_FULL=1 adds the expensive runs, FB_RED_DISARM=KNOB
# runs without that knob and must fail naming it).
check-red: not-in-tmp deps-test ## tests: each red knob goes red for its stated reason (tests/red/run.sh)
	sh tests/red/run.sh $(KNOBS)

bench: deps-test ## bench: the benchmark on KVER in one VM boot (bench/run.sh)
	sh bench/run.sh $(if $(filter command line,$(origin KVER)),$(KVER),$(DEFAULT_KVER))

# Our module from this tree against git revision REV, side by side in one
# boot of KVER (bench/ab.sh).
bench-ab: not-in-tmp deps-test ## bench: this tree against revision REV in one boot (bench/ab.sh)
	@[ -n "$(REV)" ] || { echo "make: bench-ab needs REV=<git revision> (and KVER=)" >&2; exit 2; }
	sh bench/ab.sh $(if $(filter command line,$(origin KVER)),$(KVER),$(DEFAULT_KVER)) $(REV)

# Several interleaved `make bench` runs of one kernel and module, their
# paired ratios pooled (bench/pool.sh): reads results/, runs nothing.
bench-pool: ## bench: pool the paired ratios of RUNS (bench/pool.sh)
	@[ -n "$(RUNS)" ] || { echo "make: bench-pool needs RUNS=\"results/bench/KVER/RUN-ID ...\"" >&2; exit 2; }
	sh bench/pool.sh $(RUNS)

# Installs only what it needs (dev/deps.sh demo) and builds one module.
demo: not-in-tmp ## tests: build for one Debian kernel and show our module in a VM (dev/demo.sh)
	sh dev/demo.sh $(DEFAULT_KVER)

dkms-install: import ## dkms: register, build and install this tree with DKMS for KVER (dev/dkms-local.sh)
	sh dev/dkms-local.sh $(KVER)

# Packages, into build/pkg/ (docs/packaging.md).
deps-pkg: ## packages: install what building the packages needs (dev/deps.sh pkg)
	sh dev/deps.sh pkg

deb: ## packages: the .deb packages into build/pkg (dev/pkg-deb.sh)
	sh dev/pkg-deb.sh

rpm: ## packages: the .rpm packages into build/pkg (dev/pkg-rpm.sh)
	sh dev/pkg-rpm.sh

kmod-deb: import-all ## packages: a prebuilt, optionally signed module .deb for KVER (dev/kmod-deb.sh)
	SIGN_KEY="$(SIGN_KEY)" SIGN_CERT="$(SIGN_CERT)" sh dev/kmod-deb.sh $(KVER) $(KDIR)

# Signed apt and dnf repositories of build/pkg in build/repo (docs/packaging.md,
# "Repositories"): REPO_KEY is the operator's GnuPG signing key. make repo
# publishes to the canary channel (apt and dnf); repo-promote gives stable
# what canary serves, repo-rollback gives stable back its previous snapshot.
repo: ## packages: publish build/pkg to the canary channel (dev/repo.sh)
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh publish
repo-promote: ## packages: stable gets what canary serves
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh promote
repo-rollback: ## packages: stable gets its previous snapshot back
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh rollback
repo-status: ## packages: what each channel serves
	sh dev/repo.sh status


checkpatch: import ## import: checkpatch on our patches
	@for p in backports/*/patches/*.patch backports/*/infra/patches/*.patch; do \
		[ -f "$$p" ] || continue; \
		perl $(SRC)/scripts/checkpatch.pl --no-tree -q - < "$$p" || exit 1; \
	done; echo "checkpatch: all patches clean"

clean: ## build: remove build/
	rm -rf build

distclean: clean ## import: remove build/ and the generated trees src/upstream-*
	rm -rf src/upstream-*

# The docs generated from the pins and results/ (dev/docs.sh): the README's
# kernel table, docs/coverage.md, docs/benchmarks.md. make check's "docs"
# section fails when they differ from what `make docs` renders.
.PHONY: docs
docs: ## docs: render the generated docs from the pins and results/ (dev/docs.sh)
	sh dev/docs.sh
