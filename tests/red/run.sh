#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-red: every red knob of tests/red/knobs, its fault in, must turn
# its check red for the reason the file gives (each expect and says pattern
# met) and for no other (every failure of the run matched by an expect or
# also pattern of one of its knobs). Knobs of one VM run share its boot.
# A run the file marks full runs with FB_CHECK_FULL=1; else each of its
# knobs is a named skip. Each run's output: build/red/RUN.log (a VM run's
# TAP files after it, each line after the file's name), its verdicts
# RUN.verdict.
#
# usage: tests/red/run.sh [KNOB...]   (default: every knob; a knob named
#                                      runs its run with only the knobs named)
# environment: FB_CHECK_FULL=1 (the full runs too); FB_RED_DISARM="KNOB..."
#   (the mutation proof: those knobs' environment is not applied, their
#   verdicts still given, so check-red must fail naming them); FB_RED_DATA
#   (another knobs file) and FB_RED_OUT (another directory for the runs'
#   output): tests/host-scripts/red.sh
# Prints TAP ("ok N - knob NAME: red for its reason", and one line a run:
# "run NAME: no failure but its knobs' reasons"), then
# "check-red: N passed, N failed, N skipped".
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
data=${FB_RED_DATA:-$top/tests/red/knobs}
out=${FB_RED_OUT:-$top/build/red}
tap_suite=check-red
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"
# shellcheck source=tests/red/lib.sh
. "$top/tests/red/lib.sh"
die() { echo "check-red: $*" >&2; echo "check-red: 0 passed, 1 failed"; exit 2; }

[ -r "$data" ] || die "cannot read $data"
red_check "$data" || die "$data is not well formed (above)"
all=$(red_names "$data" knob)
for k in "$@" ${FB_RED_DISARM:-}; do
	echo "$all" | grep -qxF -- "$k" || die "no knob '$k' in $data (knobs: $(echo "$all" | tr '\n' ' '))"
done
want=${*:-$all}
disarmed() { case " ${FB_RED_DISARM:-} " in *" $1 "*) return 0 ;; esac; return 1; }
[ -z "${FB_RED_DISARM:-}" ] || tap_diag "FB_RED_DISARM: knobs run without their environment (each must fail): $FB_RED_DISARM"

# Every variable a knob sets starts unset in every run: one inherited from
# the caller would arm a knob in runs that are not its own.
knob_vars=$(awk '$1 == "knob" { for (i = 4; i <= NF; i++) { v = $i; sub(/[+]?=.*/, "", v); print v } }' "$data" | sort -u)
# shellcheck disable=SC2086 # a list of names
unset $knob_vars

mkdir -p "$out" || die "cannot create $out"
t0=$(date +%s)
for run in $(red_names "$data" run); do
	knobs=""
	for k in $(red_knobs_of "$data" "$run"); do
		case " $(echo "$want" | tr '\n' ' ') " in *" $k "*) knobs="$knobs $k" ;; esac
	done
	[ -n "$knobs" ] || continue
	line=$(red_field "$data" run "$run")
	full=$(red_field "$data" full "$run")
	if [ -n "$full" ] && [ "${FB_CHECK_FULL:-0}" != 1 ]; then
		for k in $knobs; do
			tap_skip "knob $k (run $run)" "$full; FB_CHECK_FULL=1 runs it"
		done
		continue
	fi
	set -f
	# shellcheck disable=SC2086 # the run line's words
	set -- $line
	set +f
	minutes=$1 kind=$2
	shift 2
	# The environment: the run's words (a vm run's after its kernel and
	# suites), then each armed knob's; a comma is a space, VAR+=VALUE
	# appends. What runs: the run-suites.sh arguments or the command.
	if [ "$kind" = vm ]; then
		kver=$1 suites=$(echo "$2" | tr ',' ' ')
		shift 2
		envw="$*" cmd=""
	else
		kver="" suites="" envw="" cmd="$*"
	fi
	for k in $knobs; do
		disarmed "$k" && continue
		envw="$envw $(red_field "$data" knob "$k" | cut -d' ' -f2-)"
	done
	log=$out/$run.log
	tap_diag "run $run ($kind, about $minutes min):$knobs"
	s0=$(date +%s)
	(
		set -f
		for w in $envw; do
			v=${w%%=*}
			val=$(echo "${w#*=}" | tr ',' ' ')
			case $v in
			*+)
				v=${v%+}
				eval "old=\${$v:-}"
				# shellcheck disable=SC2154 # set by the eval
				val="${old:+$old }$val"
				;;
			esac
			export "$v=$val"
		done
		# A red run's report is no record (tests/lib/results.sh).
		export FB_RESULTS=none
		cd "$top" || exit 1
		# shellcheck disable=SC2086 # the suites, one word each
		[ "$kind" = vm ] && exec sh "$top/tests/vm/run-suites.sh" "$kver" $suites
		exec sh -c "$cmd"
	) > "$log" 2>&1
	rc=$?
	# A VM run's TAP files, each line after its file's name (so that no
	# line of them reads as a failure of its own): what the suites said
	# (a says pattern) is in them, not in the report.
	if [ "$kind" = vm ]; then
		for f in "$top/build/vm/results-$kver"/*.tap; do
			[ -f "$f" ] && sed "s|^|${f##*/}: |" "$f" >> "$log"
		done
	fi
	count=$(grep -E '^[A-Za-z0-9_.+-]+: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	tap_diag "run $run: exit $rc in $(($(date +%s) - s0)) s${count:+; }$count; output: $log"
	# shellcheck disable=SC2086 # a list of knobs
	red_judge "$data" "$run" "$log" "$rc" $knobs > "$out/$run.verdict"
	while IFS= read -r v; do
		case $v in
		"#"*) echo "$v" ;;
		"not ok	"*) tap_check 1 "${v#*	}" ;;
		"ok	"*) tap_check 0 "${v#*	}" ;;
		esac
	done < "$out/$run.verdict"
done
tap_diag "check-red took $(($(date +%s) - t0)) s"
tap_done
