# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# make check-red's knobs file (tests/red/knobs) and its judgement of a run,
# sourced by tests/red/run.sh and tests/host-scripts/red.sh. Facts (the
# file's lines), the failures of a run's output, the judgement of each knob;
# nothing here runs a check.
#
#   red_check DATA          the file is well formed (one line on stderr for
#                           each fault, status 1)
#   red_field DATA KEY NAME the rest of each KEY NAME line, one a line
#   red_names DATA KEY      the NAME of every KEY line, in order
#   red_knobs_of DATA RUN   the knobs of RUN, in order
#   red_failures LOG        the failure lines of a run's output: its TAP
#                           "not ok" lines and the lines of a VM report's
#                           "Failures:" block
#   red_judge DATA RUN LOG RC KNOB...
#                           the verdicts on RUN's output LOG (RC its exit
#                           status) for the KNOBs: a line "ok|not ok<TAB>TEXT"
#                           a knob, then one for the run itself (no failure
#                           but the knobs'), each followed by "#" lines

red_check() {
	awk '
	function bad(m) { printf "red: %s:%d: %s\n", FILENAME, NR, m > "/dev/stderr"; err = 1 }
	function envw(w) { return w ~ /^FB_[A-Z0-9_]+[+]?=/ }
	/^[[:space:]]*(#|$)/ { next }
	$1 == "run" {
		if (NF < 5) { bad("run NAME MINUTES vm|cmd ...: too few words"); next }
		if ($2 in run) bad("run " $2 " given twice")
		run[$2] = NR
		if ($3 !~ /^[0-9]+$/) bad("run " $2 ": MINUTES is not a number: " $3)
		if ($4 == "vm") {
			if (NF < 6) bad("run " $2 ": vm KVER SUITE,SUITE... [VAR=VALUE...]")
			for (i = 7; i <= NF; i++) if (!envw($i)) bad("run " $2 ": not VAR=VALUE: " $i)
		} else if ($4 != "cmd") bad("run " $2 ": kind " $4 " is neither vm nor cmd")
		next
	}
	$1 == "knob" {
		if (NF < 4) { bad("knob NAME RUN VAR=VALUE...: too few words"); next }
		if ($2 in knob) bad("knob " $2 " given twice")
		knob[$2] = $3; kline[$2] = NR
		for (i = 4; i <= NF; i++) if (!envw($i)) bad("knob " $2 ": not VAR=VALUE or VAR+=VALUE: " $i)
		next
	}
	$1 == "full" || $1 == "covers" || $1 == "expect" || $1 == "also" || $1 == "says" {
		if (NF < 3) { bad($1 " NAME ...: too few words"); next }
		ref[NR] = $1 " " $2
		if ($1 == "expect" || $1 == "says") need[$2] = 1
		next
	}
	{ bad("unknown key " $1) }
	END {
		for (k in knob) if (!(knob[k] in run)) { NR = kline[k]; bad("knob " k ": no run " knob[k]) }
		for (k in knob) if (!(k in need)) { NR = kline[k]; bad("knob " k ": no expect or says line") }
		for (n in ref) {
			split(ref[n], w, " ")
			if (w[1] == "full" ? !(w[2] in run) : !(w[2] in knob)) { NR = n; bad(w[1] " " w[2] ": no such " (w[1] == "full" ? "run" : "knob")) }
		}
		exit err
	}' "$1"
}

red_field() {
	awk -v k="$2" -v n="$3" '$1 == k && $2 == n { sub(/^[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]*/, ""); print }' "$1"
}

red_names() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

red_knobs_of() {
	awk -v r="$2" '$1 == "knob" && $3 == r { print $2 }' "$1"
}

red_failures() {
	awk '
	/^Failures:$/ { inf = 1; next }
	inf && /^$/ { inf = 0 }
	inf { print; next }
	/^not ok / { print }' "$1"
}

# red_match LINE PATTERN...: LINE matches one of the globs
red_match() {
	red_l=$1
	shift
	for red_p in "$@"; do
		# shellcheck disable=SC2254 # the pattern is a glob
		case $red_l in $red_p) return 0 ;; esac
	done
	return 1
}

# red_patterns DATA KEY KNOB... > FILE: the KEY patterns of the KNOBs
red_patterns() {
	red_d=$1 red_k=$2
	shift 2
	for red_n in "$@"; do
		red_field "$red_d" "$red_k" "$red_n"
	done
}

red_judge() {
	rj_data=$1 rj_run=$2 rj_log=$3 rj_rc=$4
	shift 4
	rj_f=$(red_failures "$rj_log")
	rj_red=0
	[ "$rj_rc" != 0 ] || [ -n "$rj_f" ] || rj_red=1
	for rj_k in "$@"; do
		rj_miss=""
		while IFS= read -r rj_p; do
			[ -n "$rj_p" ] || continue
			rj_hit=1
			while IFS= read -r rj_l; do
				red_match "$rj_l" "$rj_p" && { rj_hit=0; break; }
			done <<EOF
$rj_f
EOF
			[ $rj_hit = 0 ] || rj_miss="$rj_miss
#   no failure matches: $rj_p"
		done <<EOF
$(red_field "$rj_data" expect "$rj_k")
EOF
		while IFS= read -r rj_p; do
			[ -n "$rj_p" ] || continue
			rj_hit=1
			while IFS= read -r rj_l; do
				red_match "$rj_l" "$rj_p" && { rj_hit=0; break; }
			done < "$rj_log"
			[ $rj_hit = 0 ] || rj_miss="$rj_miss
#   no line of the output says: $rj_p"
		done <<EOF
$(red_field "$rj_data" says "$rj_k")
EOF
		if [ $rj_red != 0 ]; then
			printf 'not ok\tknob %s: red for its reason: the run %s is not red (exit %s, no failure)\n' "$rj_k" "$rj_run" "$rj_rc"
		elif [ -n "$rj_miss" ]; then
			printf 'not ok\tknob %s: red for its reason: the run %s is red, but not for it%s\n' "$rj_k" "$rj_run" "$rj_miss"
		else
			printf 'ok\tknob %s: red for its reason\n' "$rj_k"
		fi
	done
	# Every failure of the run must be one a knob of it stands for.
	rj_other=""
	rj_n=0
	rj_pats=$(red_patterns "$rj_data" expect "$@"; red_patterns "$rj_data" also "$@")
	while IFS= read -r rj_l; do
		[ -n "$rj_l" ] || continue
		rj_hit=1
		while IFS= read -r rj_p; do
			[ -n "$rj_p" ] && red_match "$rj_l" "$rj_p" && { rj_hit=0; break; }
		done <<EOF
$rj_pats
EOF
		[ $rj_hit = 0 ] && continue
		rj_n=$((rj_n + 1))
		rj_other="$rj_other
#   $(printf '%s' "$rj_l" | cut -c1-300)"
	done <<EOF
$rj_f
EOF
	if [ $rj_n = 0 ]; then
		printf 'ok\trun %s: no failure but its knobs'"'"' reasons\n' "$rj_run"
	else
		printf 'not ok\trun %s: no failure but its knobs'"'"' reasons: %s other%s\n' "$rj_run" "$rj_n" "$rj_other"
	fi
}
