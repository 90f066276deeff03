# SPDX-License-Identifier: GPL-2.0-only
# tests/host-tools/run.sh: status --prometheus and its units. Sourced by
# run.sh, in its shell, its mount namespace and its TAP count ($top, $work,
# $tool, $kver, check and the state the parts before it set up).
# shellcheck shell=sh disable=SC2154
# status --prometheus (tools/print_prom.c), checked by promcheck.awk (the
# exposition format: promtool is not installed here) and against status
# --json of the same state (jq: health, problems, takeover, each kernel,
# what serves each type, the version). The state: our module installed
# for the running kernel (FUSE built in), fusebp "loaded" with takeover=0
# under TAKEOVER=yes (configured, not active: degraded), and the newest
# kernel a name with a double quote, a backslash, a newline and a byte
# that is not UTF-8 (no module of ours: a problem naming it).
layout updates/dkms
echo kernel/fs/fuse/fuse.ko > "/lib/modules/$kver/modules.builtin"
hk=$(printf '9.9.9-fb"q\\b\nx\377-amd64')
mkdir -p "/lib/modules/$hk/kernel" && : > "/lib/modules/$hk/modules.order"
# prom_state OUT ARGS...: ARGS run in that state, stdout in OUT, the exit status in OUT.rc
prom_state() {
	o=$1
	shift
	# shellcheck disable=SC2016 # expanded by the inner shell
	unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs none /sys/module &&
		mount -t tmpfs none /etc/fuse-backport || exit 99
		mkdir -p /sys/module/fusebp/parameters && echo live > /sys/module/fusebp/initstate &&
		echo "$1" > /sys/module/fusebp/version && echo 0123456789ABCDEF > /sys/module/fusebp/srcversion &&
		echo 0 > /sys/module/fusebp/parameters/takeover &&
		echo TAKEOVER=yes > /etc/fuse-backport/fuse-backport.conf || exit 99
		shift
		"$@"' sh "$ver" "$@" > "$o" 2> "$o.err"
	echo $? > "$o.rc"
}
prom_state "$work/pr.prom" "$tool" status --prometheus --no-probe
prom_state "$work/pr.json" "$tool" status --json --no-probe
prc=$(cat "$work/pr.prom.rc") jrc=$(cat "$work/pr.json.rc")
LC_ALL=C awk -f "$top/tests/host-tools/promcheck.awk" "$work/pr.prom" > "$work/pr.jsonl" 2> "$work/pr.chk"
crc=$?
chk=$(head -n 1 "$work/pr.chk")
[ "$crc" = 0 ] && [ -s "$work/pr.jsonl" ] && iconv -f UTF-8 -t UTF-8 "$work/pr.prom" > /dev/null 2>&1
check $? "status --prometheus: the exposition format holds, valid UTF-8 ($(wc -l < "$work/pr.jsonl") samples; ${chk:-no fault})"
# the model: each metric from status --json's fields; prints what differs
# (backslashes doubled: tap.sh's echo takes one away)
diff=$(jq -n -r --slurpfile p "$work/pr.jsonl" --slurpfile j "$work/pr.json" '
	$j[0] as $s |
	def all(n): [$p[] | select(.name == n)];
	def one(n): all(n) | if length == 1 and .[0].labels == {} then .[0].value | tonumber else "no single sample" end;
	def yes(b): if b then 1 else 0 end;
	def is(what; got; want): if got == want then empty else "\(what): \(got | tojson), want \(want | tojson)" end;
	is("health"; one("fuse_backport_health"); $s.exit_status),
	is("health by name"; one("fuse_backport_health"); {healthy: 0, degraded: 1, error: 2}[$s.health]),
	is("problems"; one("fuse_backport_problems"); $s.problems | length),
	is("problem reasons"; [all("fuse_backport_problem")[] | [.labels.reason, .value]] | sort;
		[$s.problems | unique | .[] | [., "1"]]),
	is("takeover configured"; one("fuse_backport_takeover_configured"); yes($s.takeover.configured == "yes")),
	is("takeover active"; one("fuse_backport_takeover_active"); yes($s.takeover.active == true)),
	is("kernels"; one("fuse_backport_kernels"); $s.kernels | length),
	is("kernel info"; [all("fuse_backport_kernel_info")[] | .labels | {kernel, state, fuse_age, running, newest}] | sort;
		[$s.kernels[] | {kernel, state: (if .ours_file then "ours" else "none" end), fuse_age: (.fuse_age // "none"),
			running: (yes(.running) | tostring), newest: (yes(.newest) | tostring)}] | sort),
	is("module info"; [all("fuse_backport_module_info")[] | .labels | {fstype, module: .module, kind, state, version, flavor, srcversion}] | sort;
		[$s.implementations[] | {fstype, module: .module, kind, state, version: (.version // ""),
			flavor: (.flavor // ""), srcversion: (.srcversion // "")}] | sort),
	is("tool version"; [all("fuse_backport_tool_info")[] | .labels.version]; [$s.tool_version])' 2>&1 | paste -sd';' - | sed 's/\\/\\\\/g')
# the state is the one meant (not a vacuous agreement): degraded, configured not active, the hostile kernel
st=$(jq -r '[.health, .takeover.configured, (.takeover.active | tostring), ([.kernels[] | select(.kernel | startswith("9.9.9-fb"))] | length)] | join(" ")' "$work/pr.json" 2> /dev/null)
[ "$crc" = 0 ] && [ -z "$diff" ] && [ "$prc" = 1 ] && [ "$jrc" = 1 ] && [ "$st" = "degraded yes false 1" ]
check $? "status --prometheus agrees with status --json (exit $prc and $jrc, want 1; state: $st): ${diff:-no difference}"
# the escapes, by hand: \" \\ \n, and U+FFFD for the byte that is not UTF-8
esc=$(printf '9.9.9-fb\\"q\\\\b\\nx\357\277\275-amd64')
grep -Fq "fuse_backport_kernel_info{kernel=\"$esc\"," "$work/pr.prom" &&
	grep -Fq "fuse_backport_problem{reason=\"the newest installed kernel $esc has no module of ours" "$work/pr.prom"
check $? "status --prometheus: a kernel name with a double quote, a backslash, a newline and a non-UTF-8 byte, escaped in its kernel label and in the problem's reason ($(grep -Fc "$esc" "$work/pr.prom") lines, want 2)"
"$tool" status --prometheus --json > "$work/pj.out" 2> "$work/pj.err"
rc=$?
[ "$rc" = 2 ] && [ ! -s "$work/pj.out" ] && [ "$(wc -l < "$work/pj.err")" = 1 ]
check $? "status --prometheus --json: exit $rc (want 2), one line ($(head -n 1 "$work/pj.err"))"
# shellcheck disable=SC2016 # expanded by the inner shell
prom_state "$work/pf.out" sh -c '"$1" status --prometheus --no-probe > /dev/full' sh "$tool"
rc=$(cat "$work/pf.out.rc")
[ "$rc" = 3 ] && grep -q 'cannot write the metrics' "$work/pf.out.err"
check $? "status --prometheus with stdout full: exit $rc (want 3, not status's 1): $(head -n 1 "$work/pf.out.err")"

# The units: systemd-analyze verify on them (with the timer's service
# beside it), then the service's ExecStart by hand (systemd's $$ made $,
# the tool this one) in the degraded state: the file replaced by a rename
# (a hard link to the old one keeps the old text), exit 0, no temporary
# file left; a directory that is not there fails it.
svc=$top/tools/fuse-backport-prometheus.service
if command -v systemd-analyze > /dev/null; then
	mkdir -p "$work/units"
	cp "$svc" "$top/tools/fuse-backport-prometheus.timer" "$work/units/"
	systemd-analyze verify --man=no "$work/units/fuse-backport-prometheus.service" \
		"$work/units/fuse-backport-prometheus.timer" > "$work/sa.out" 2>&1
	rc=$?
	[ "$rc" = 0 ] && [ ! -s "$work/sa.out" ]
	check $? "systemd-analyze verify fuse-backport-prometheus.service and .timer: exit $rc, silent ($(head -n 1 "$work/sa.out"))"
else
	tap_skip "systemd-analyze verify of the prometheus units" "systemd-analyze is missing"
fi
cmd=$(sed -n 's/^ExecStart=//p' "$svc" | sed -e 's/\$\$/$/g' -e "s|/usr/bin/fuse-backport|$tool|")
dir=$(sed -n 's/^Environment=FB_PROM_DIR=//p' "$svc")
mkdir -p "$work/prom"
echo old > "$work/prom/fuse-backport.prom"
ln "$work/prom/fuse-backport.prom" "$work/prom/old"
prom_state "$work/ex.out" env FB_PROM_DIR="$work/prom" sh -c "$cmd"
rc=$(cat "$work/ex.out.rc")
prom_state "$work/ex.direct" "$tool" status --prometheus --no-probe
drc=$(cat "$work/ex.direct.rc")
left=$(find "$work/prom" -mindepth 1 ! -name fuse-backport.prom ! -name old)
[ "$rc" = 0 ] && [ "$drc" = 1 ] && [ "$(cat "$work/prom/old")" = old ] &&
	cmp -s "$work/prom/fuse-backport.prom" "$work/ex.direct" && [ -z "$left" ] &&
	[ "$(stat -c %a "$work/prom/fuse-backport.prom")" = 644 ] && [ "$dir" = /var/lib/prometheus/node-exporter ]
check $? "the service's ExecStart, status degraded (exit $drc): exit $rc (want 0), file replaced by rename (old inode: $(cat "$work/prom/old")), same as status --prometheus, mode $(stat -c %a "$work/prom/fuse-backport.prom"), left: ${left:-nothing}; FB_PROM_DIR default $dir"
prom_state "$work/ex.out" env FB_PROM_DIR="$work/no-such-dir" sh -c "$cmd"
rc=$(cat "$work/ex.out.rc")
[ "$rc" != 0 ] && [ "$rc" != 99 ] && [ ! -e "$work/no-such-dir" ]
check $? "the service's ExecStart into a directory that is not there: fails (exit $rc: $(tail -n 1 "$work/ex.out.err"))"
