# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Where a producer's results go, and what they were measured with. Sourced
# on the host by the producers: the bench (bench/run.sh, ab.sh), the
# build matrix (dev/check-build.sh), the VM report (tests/vm/report.sh) and
# make check's section times (tests/check.sh). dev/docs.sh reads what they
# write (docs/coverage.md, docs/benchmarks.md).
#
#   fb_results_dir KIND KVER [TAG]
#       creates and prints results/KIND/KVER/RUN-ID/, RUN-ID being the UTC
#       time and the short commit (20261202T170000Z-42aa177), "-TAG" after
#       it when given; FB_RUN_ID overrides RUN-ID. Needs $top (the
#       checkout); FB_RESULTS moves the results root (default $top/results),
#       FB_RESULTS=none makes it fail (status 2, silent): no record.
#   fb_meta_write DIR COMMAND [KEY: VALUE]...
#       writes DIR/meta.txt: the command, the commit and whether the tree
#       had uncommitted changes, every FB_* variable set in the
#       environment, nproc, the load average, the qemu, virtme-ng and dkms
#       versions (where installed), then each extra "KEY: VALUE" line.

fb_results_dir() {
	fb_r_kind=${1:?fb_results_dir KIND KVER [TAG]}
	fb_r_kver=${2:?fb_results_dir KIND KVER [TAG]}
	[ "${FB_RESULTS:-}" = none ] && return 2
	case $fb_r_kind/$fb_r_kver in
	*/*/* | .* | */.*) echo "results: bad kind or kernel '$fb_r_kind' '$fb_r_kver'" >&2; return 1 ;;
	esac
	fb_r_id=${FB_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(git -C "$top" rev-parse --short HEAD 2> /dev/null || echo nogit)${3:+-$3}}
	fb_r_dir=${FB_RESULTS:-$top/results}/$fb_r_kind/$fb_r_kver/$fb_r_id
	mkdir -p "$fb_r_dir" || { echo "results: cannot create $fb_r_dir" >&2; return 1; }
	echo "$fb_r_dir"
}

# fb_meta_version NAME CMD...: "NAME: first line of CMD's output", or "NAME: not installed"
fb_meta_version() {
	fb_m_name=$1
	shift
	if command -v "$1" > /dev/null 2>&1; then
		echo "$fb_m_name: $("$@" 2>&1 | sed -n '/./{p;q;}')"
	else
		echo "$fb_m_name: not installed"
	fi
}

fb_meta_write() {
	fb_m_dir=${1:?fb_meta_write DIR COMMAND}
	fb_m_cmd=${2:?fb_meta_write DIR COMMAND}
	shift 2
	{
		echo "command: $fb_m_cmd"
		echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
		if fb_m_sha=$(git -C "$top" rev-parse HEAD 2> /dev/null); then
			echo "commit: $fb_m_sha"
			# results/ is where the run writes: not a change to what ran
			if [ -n "$(git -C "$top" status --porcelain --untracked-files=no -- . ':!results' 2> /dev/null)" ]; then
				echo "dirty: yes"
			else
				echo "dirty: no"
			fi
		else
			echo "commit: unknown (no git checkout)"
			echo "dirty: unknown"
		fi
		echo "host kernel: $(uname -r)"
		echo "nproc: $(nproc)"
		echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
		fb_meta_version qemu qemu-system-x86_64 --version
		fb_meta_version virtme-ng vng --version
		fb_meta_version dkms dkms --version
		env | LC_ALL=C sort | sed -n 's/^\(FB_[A-Za-z0-9_]*=\)/env: \1/p'
		for fb_m_kv in "$@"; do
			echo "$fb_m_kv"
		done
	} > "$fb_m_dir/meta.txt"
}
