# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make check-red's judgement (tests/red/run.sh,
# tests/red/lib.sh) on fake runs: a knobs file of its own whose runs are a
# script printing TAP and a VM report's "Failures:" block by its
# environment, no VM. The right failures pass; a knob made harmless, a knob
# red for another reason, one failure more than the knobs stand for, a
# missing message, a disarmed knob (FB_RED_DISARM) each fail, naming the
# knob or the run; a full run is a named skip without FB_CHECK_FULL=1; a
# malformed file and an unknown knob are refused in one line. Sourced by
# it, in its shell and its TAP count ($top, $work, ok, notok).
# shellcheck shell=sh disable=SC2154

rd=$work/red
mkdir -p "$rd"
cat > "$rd/fake.sh" << 'EOF'
# the fake check: its failures by its environment
[ "${FB_FAKE_A:-0}" = 1 ] && echo "not ok 1 - alpha: the model claims a write not made" && bad=1
[ "${FB_FAKE_X:-0}" = 1 ] && echo "not ok 2 - xray: something else broke" && bad=1
[ "${FB_FAKE_S:-0}" = 1 ] && echo "fake: the sierra message"
if [ "${FB_FAKE_R:-0}" = 1 ]; then
	printf '| suite | ours |\n\nFailures:\nours/fake: not ok 3 - romeo: bytes differ\nfinal kernel log: WARNING: romeo\n\nvm-fake: 2 passed, 2 failed, 0 skipped\n'
	bad=1
fi
echo "fake: ${bad:+not }clean"
exit ${bad:-0}
EOF
# rd_data FILE KNOB-LINE...: a knobs file of runs "a" and "r" (and "big",
# full) whose knobs are the lines given, each expecting what it must
rd_data() {
	rd_f=$1
	shift
	{
		echo "run a 0 cmd sh $rd/fake.sh"
		echo "run r 0 cmd sh $rd/fake.sh"
		echo "run big 0 cmd sh $rd/fake.sh"
		echo "full big a run too long for the default tier"
		for rd_l in "$@"; do echo "$rd_l"; done
	} > "$rd_f"
}
KA="knob KA a FB_FAKE_A=1
expect KA not ok * - alpha: the model claims a write not made"
KR="knob KR r FB_FAKE_R=1
expect KR ours/fake: not ok * - romeo: bytes differ
expect KR final kernel log: *romeo*"
# rd_case NAME WANT-RC WANT-COUNT GREP-RE DATA [VAR=VALUE...]: run.sh on
# DATA exits WANT-RC, ends with WANT-COUNT, and its output matches GREP-RE
rd_case() {
	rd_name=$1 rd_wrc=$2 rd_wcount=$3 rd_re=$4 rd_d=$5
	shift 5
	env "$@" FB_RED_DATA="$rd_d" FB_RED_OUT="$rd/out" sh "$top/tests/red/run.sh" > "$rd/out.txt" 2> "$rd/err.txt"
	rd_rc=$?
	rd_got=$(tail -n 1 "$rd/out.txt")
	if [ $rd_rc = "$rd_wrc" ] && [ "$rd_got" = "$rd_wcount" ] && grep -Eq -- "$rd_re" "$rd/out.txt" "$rd/err.txt"; then
		# the line quoted, its "# SKIP" not read as a skip of this section
		ok "check-red judgement: $rd_name: $rd_got ($(grep -E -h -m 1 -- "$rd_re" "$rd/out.txt" "$rd/err.txt" | sed 's/ # SKIP / (skip) /' | cut -c1-120))"
	else
		{ echo "exit $rd_rc (want $rd_wrc), '$rd_got' (want '$rd_wcount'), /$rd_re/ in the output:"; cat "$rd/out.txt" "$rd/err.txt"; } > "$work/err"
		notok "check-red judgement: $rd_name"
	fi
}
rd_data "$rd/right" "$KA" "$KR"
rd_case "the right failures, in TAP and a VM report's Failures block" 0 "check-red: 4 passed, 0 failed, 0 skipped" \
	'^ok 3 - knob KR: red for its reason$' "$rd/right"
rd_data "$rd/harmless" "knob KA a FB_FAKE_A=0
expect KA not ok * - alpha: the model claims a write not made"
rd_case "a knob made harmless" 1 "check-red: 1 passed, 1 failed, 0 skipped" \
	'^not ok 1 - knob KA: red for its reason: the run a is not red' "$rd/harmless"
rd_data "$rd/other" "knob KA a FB_FAKE_X=1
expect KA not ok * - alpha: the model claims a write not made"
rd_case "a knob red for another reason: its failure missing" 1 "check-red: 0 passed, 2 failed, 0 skipped" \
	'^#   no failure matches: not ok \* - alpha' "$rd/other"
rd_data "$rd/extra" "knob KA a FB_FAKE_A=1 FB_FAKE_X=1
expect KA not ok * - alpha: the model claims a write not made"
rd_case "one failure more than its knobs stand for" 1 "check-red: 1 passed, 1 failed, 0 skipped" \
	"^not ok 2 - run a: no failure but its knobs' reasons: 1 other" "$rd/extra"
rd_data "$rd/also" "knob KA a FB_FAKE_A=1 FB_FAKE_X=1
expect KA not ok * - alpha: the model claims a write not made
also KA not ok * - xray: *"
rd_case "that failure given as one the knob may cause besides" 0 "check-red: 2 passed, 0 failed, 0 skipped" \
	"^ok 2 - run a: no failure but its knobs' reasons" "$rd/also"
rd_data "$rd/says" "$KA
says KA fake: the sierra message"
rd_case "a message the output lacks" 1 "check-red: 1 passed, 1 failed, 0 skipped" \
	'^#   no line of the output says: fake: the sierra message' "$rd/says"
rd_data "$rd/says2" "knob KA a FB_FAKE_A=1 FB_FAKE_S=1
expect KA not ok * - alpha: the model claims a write not made
says KA fake: the sierra message"
rd_case "the message there" 0 "check-red: 2 passed, 0 failed, 0 skipped" '^ok 1 - knob KA' "$rd/says2"
rd_case "FB_RED_DISARM=KR: red, naming the knob" 1 "check-red: 3 passed, 1 failed, 0 skipped" \
	'^not ok 3 - knob KR: red for its reason: the run r is not red' "$rd/right" FB_RED_DISARM=KR
rd_data "$rd/full" "$KA" "knob KB big FB_FAKE_A=1
expect KB not ok * - alpha: *"
rd_case "a full run without FB_CHECK_FULL=1: a named skip" 0 "check-red: 2 passed, 0 failed, 1 skipped" \
	'^ok 3 - knob KB \(run big\) # SKIP a run too long for the default tier; FB_CHECK_FULL=1 runs it$' "$rd/full" FB_CHECK_FULL=0
rd_case "the full run with FB_CHECK_FULL=1" 0 "check-red: 4 passed, 0 failed, 0 skipped" \
	'^ok 3 - knob KB: red for its reason$' "$rd/full" FB_CHECK_FULL=1
rd_data "$rd/bad" "knob KA nowhere FB_FAKE_A=1
expect KA not ok *"
rd_case "a knob of no run: refused" 2 "check-red: 0 passed, 1 failed" '^red: .*: knob KA: no run nowhere$' "$rd/bad"
rd_case "FB_RED_DISARM of an unknown knob: refused" 2 "check-red: 0 passed, 1 failed" \
	"^check-red: no knob 'KZ' in " "$rd/right" FB_RED_DISARM=KZ
