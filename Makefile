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

.PHONY: all deps deps-test import import-all modules check-build check-tools check-vm check-debug \
	check check-red bench bench-ab bench-pool demo dkms-install checkpatch clean distclean \
	deps-pkg deb rpm kmod-deb repo repo-promote repo-rollback repo-status not-in-tmp test-progs

all: modules

deps:
	sh dev/deps.sh build $(MATRIX_HEADERS)

deps-test:
	sh dev/deps.sh test $(MATRIX_HEADERS)

import:
	OUT=$(CURDIR)/$(SRC) SERIES=$(SERIES) sh dev/import.sh $(BASE)

# Every base's generated tree (the build matrix and the package need them all).
import-all:
	@for b in $(BASES); do \
		OUT=$(CURDIR)/src/upstream-$$b SERIES=all sh dev/import.sh $$b || exit 1; \
	done

modules: import
	SRC=$(CURDIR)/$(SRC) BUILD=$(CURDIR)/$(BUILD) sh scripts/build.sh $(KVER) $(KDIR)

check-build: import-all
	FB_WERROR=0 sh dev/check-build.sh

# Every C test helper, in one build (tests/Makefile); the VM runner, bench,
# the demo and the host tests all build them through it.
test-progs:
	$(MAKE) -s -C tests

check-tools:
	sh tests/host-scripts/run.sh

# The VM gets a fresh /tmp of its own: a checkout under the host's /tmp is
# invisible in it.
not-in-tmp:
	@sh tests/vm/not-in-tmp.sh make

check-vm: not-in-tmp
	sh tests/vm/run-suites.sh $(KVER) $(SUITES)

# The suites on a lockdep/KASAN/kmemleak/failslab kernel built from the pinned base (once per
# machine, under /var/cache/fuse-backport/debug-kernel): tests/debug/run.sh.
check-debug: not-in-tmp deps-test
	sh tests/debug/run.sh $(SUITES)

check: deps-test
	FB_VM_KVERS="$(VM_KVERS)" sh tests/check.sh

# The red knobs as data (tests/red/knobs): with each fault in, its check
# must go red for the reason given there and no other (tests/red/run.sh;
# KNOBS= narrows, FB_CHECK_FULL=1 adds the expensive runs, FB_RED_DISARM=KNOB
# runs without that knob and must fail naming it).
check-red: not-in-tmp deps-test
	sh tests/red/run.sh $(KNOBS)

bench: deps-test
	sh tests/bench/run.sh $(if $(filter command line,$(origin KVER)),$(KVER),$(DEFAULT_KVER))

# Our module from this tree against git revision REV, side by side in one
# boot of KVER (tests/bench/ab.sh).
bench-ab: not-in-tmp deps-test
	@[ -n "$(REV)" ] || { echo "make: bench-ab needs REV=<git revision> (and KVER=)" >&2; exit 2; }
	sh tests/bench/ab.sh $(if $(filter command line,$(origin KVER)),$(KVER),$(DEFAULT_KVER)) $(REV)

# Several interleaved `make bench` runs of one kernel and module, their
# paired ratios pooled (tests/bench/pool.sh): reads results/, runs nothing.
bench-pool:
	@[ -n "$(RUNS)" ] || { echo "make: bench-pool needs RUNS=\"results/bench/KVER/RUN-ID ...\"" >&2; exit 2; }
	sh tests/bench/pool.sh $(RUNS)

# Installs only what it needs (dev/deps.sh demo) and builds one module.
demo: not-in-tmp
	sh tests/demo.sh $(DEFAULT_KVER)

dkms-install: import
	sh dev/dkms-local.sh $(KVER)

# Packages, into build/pkg/ (docs/packaging.md).
deps-pkg:
	sh dev/deps.sh pkg

deb:
	sh dev/pkg-deb.sh

rpm:
	sh dev/pkg-rpm.sh

kmod-deb: import-all
	SIGN_KEY="$(SIGN_KEY)" SIGN_CERT="$(SIGN_CERT)" sh dev/kmod-deb.sh $(KVER) $(KDIR)

# Signed apt and dnf repositories of build/pkg in build/repo (docs/packaging.md,
# "Repositories"): REPO_KEY is the operator's GnuPG signing key. make repo
# publishes to the canary channel (apt and dnf); repo-promote gives stable
# what canary serves, repo-rollback gives stable back its previous snapshot.
repo:
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh publish
repo-promote:
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh promote
repo-rollback:
	REPO_KEY="$(REPO_KEY)" sh dev/repo.sh rollback
repo-status:
	sh dev/repo.sh status


checkpatch: import
	@for p in backports/*/patches/*.patch backports/*/infra/patches/*.patch; do \
		[ -f "$$p" ] || continue; \
		perl $(SRC)/scripts/checkpatch.pl --no-tree -q - < "$$p" || exit 1; \
	done; echo "checkpatch: all patches clean"

clean:
	rm -rf build

distclean: clean
	rm -rf src/upstream-*

# The docs generated from the pins and results/ (dev/docs.sh): the README's
# kernel table, docs/coverage.md, docs/benchmarks.md. make check's "docs"
# section fails when they differ from what `make docs` renders.
.PHONY: docs
docs:
	sh dev/docs.sh
