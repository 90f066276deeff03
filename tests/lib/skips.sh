# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# The allowlists of skips (tests/skips/): sourced by tests/check.sh (host
# sections, tests/skips/host) and tests/vm/report.sh (VM runs, the files of
# a kernel line). A line is
#   GLOB... TEXT-GLOB :: REASON
# with one GLOB for each key the caller matches (host: the section; VM: the
# target and the suite) and TEXT-GLOB matched against "TEST: WHY", the
# skipped test's description and the reason it gave.

# fb_skip_reason LIST TEXT KEY...: the REASON of LIST's first line whose
# globs match the KEYs and TEXT; exit 1 when no line does
fb_skip_reason() {
	sr_list=$1 sr_text=$2
	shift 2
	while IFS= read -r sr_l; do
		case $sr_l in '#'* | '') continue ;; esac
		sr_rest=$sr_l sr_ok=1
		for sr_k; do
			sr_rest=${sr_rest#"${sr_rest%%[![:space:]]*}"}
			sr_g=${sr_rest%%[[:space:]]*}
			sr_rest=${sr_rest#"$sr_g"}
			# shellcheck disable=SC2254 # the allowlist's globs
			case $sr_k in $sr_g) ;; *) sr_ok=0 && break ;; esac
		done
		[ $sr_ok = 1 ] || continue
		sr_rest=${sr_rest#"${sr_rest%%[![:space:]]*}"}
		# shellcheck disable=SC2254
		case $sr_text in ${sr_rest%% :: *}) echo "${sr_rest#* :: }" && return 0 ;; esac
	done < "$sr_list"
	return 1
}
