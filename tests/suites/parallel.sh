#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Deterministic parallelism suite (guest): writer A blocks inside its
# O_DIRECT write on a userfaultfd page while holding whatever lock the kernel
# takes; does writer B get through (tests/parallel/run.sh, uffd_pwrite)?
#   - passthrough + FOPEN_PARALLEL_DIRECT_WRITES, B non-extending: must get
#     through on ours; must wait on stock and on the unpatched base
#   - the same with B a splice(2) of one page asking for 2 MiB: must get
#     through on ours (fb2 on); must wait on stock and the unpatched base
#   - passthrough, B extending: must wait everywhere
#   - FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES, B non-extending: gets
#     through everywhere (upstream behaviour kept)
#   - control: B writes the backing file itself (XFS allows it in parallel)
# Backing files on XFS ($FB_XFS), where non-extending O_DIRECT overwrites
# share the inode lock, so only FUSE's own lock can serialize.
FB_TOP=${FB_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$FB_TOP/tests/lib/tap.sh"

if [ -z "${FB_XFS:-}" ]; then
	tap_skip "parallel passthrough writes" "no XFS scratch in this guest (null_blk or xfs missing)"
	tap_done
	exit
fi
out=$FB_SCRATCH/parallel.tap
mkdir -p "$FB_SCRATCH"
TMPDIR=$FB_XFS timeout -k 5 120 sh "$FB_TOP/tests/parallel/run.sh" --expect patched \
	--dev "$FB_DEV" --fstype "$FB_FSTYPE" > "$out" 2> "$FB_SCRATCH/parallel.err"
rc=$?
sed -n 's/^# /# /p' "$out"
if ! grep -q '^ok 1 \|^not ok 1 ' "$out"; then
	if grep -qi 'passthrough' "$FB_SCRATCH/parallel.err"; then
		tap_new 1 "passthrough + parallel writes: non-extending B completes while A is blocked" \
			"no FUSE passthrough: $(head -n 1 "$FB_SCRATCH/parallel.err")"
	else
		tap_check 1 "uffd_pwrite ran (exit $rc: $(head -n 1 "$FB_SCRATCH/parallel.err"))"
	fi
	tap_done
	exit
fi
result() { grep -q "^ok $1 " "$out"; echo $?; }
tap_check "$(result 1)" "control: non-extending B on the XFS backing file itself completes while A is blocked"
tap_new "$(result 2)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: non-extending B completes while A is blocked" \
	"upstream takes the inode lock exclusively for every passthrough write"
tap_new "$(result 3)" "passthrough + FOPEN_PARALLEL_DIRECT_WRITES: a non-extending splice B (asking for more than the file holds) completes while A is blocked" \
	"upstream takes the inode lock exclusively for every passthrough splice write"
tap_check "$(result 4)" "passthrough: extending B waits while A is blocked"
tap_check "$(result 5)" "FOPEN_DIRECT_IO + FOPEN_PARALLEL_DIRECT_WRITES: non-extending B completes while A is blocked"
tap_done
