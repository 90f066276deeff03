# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: WHEN_AHEAD= of the admin's config file
# (scripts/when-ahead.sh), what dkms.conf decides by it for a fake kernel
# ahead of base 6.12's fs/fuse and for kernels that are not (scripts/
# flavor.sh, which reads dkms.conf as dkms does), and modprobe's fallback
# (scripts/modprobe-stock.sh) with a module of ours built for an ahead
# kernel, on a fake module tree with stand-in modprobe and insmod. The
# versions come from the pin: ahead is FUSE_CURRENT_TO's sublevel + 1.
# Sourced by run.sh, in its shell and TAP count ($top, $work, ok, notok).
# FB_WHEN_AHEAD_SCRIPT: another when-ahead.sh for the setting's cases;
# FB_AHEAD_BREAK=1: the red knob (below).
# shellcheck shell=sh disable=SC2154

wa=$work/when-ahead
mkdir -p "$wa"
# FB_AHEAD_BREAK=1 (make check-red): a copy of the scripts and dkms.conf
# whose when-ahead.sh takes stock for serve, so that every stock case
# below fails for that reason
src=$top
if [ "${FB_AHEAD_BREAK:-0}" = 1 ]; then
	src=$wa/broken
	mkdir -p "$src" && cp -R "$top/scripts" "$top/backports" "$top/dkms.conf" "$src/" &&
		sed -i 's/^stock) ;;$/stock) v=serve ;;/' "$src/scripts/when-ahead.sh"
	if ! grep -q '^stock) v=serve ;;$' "$src/scripts/when-ahead.sh"; then
		notok "FB_AHEAD_BREAK: cannot break a copy of scripts/when-ahead.sh"
	fi
fi
wa_sh=${FB_WHEN_AHEAD_SCRIPT:-$src/scripts/when-ahead.sh}
# shellcheck source=/dev/null
checked=$(. "$top/backports/6.12/pin" && echo "${FUSE_CURRENT_TO:-$UPSTREAM_VERSION}")
next=${checked%.*}.$((${checked##*.} + 1))

# --- the setting -------------------------------------------------------------
# wa_case NAME WANT [LINE]: the file holds LINE (none: no file); the script
# prints WANT and, for a value it refuses, one line naming it on stderr
wa_case() {
	rm -f "$wa/conf"
	[ $# -lt 3 ] || printf '%s\n' "$3" > "$wa/conf"
	got=$(FB_CONF_FILE=$wa/conf sh "$wa_sh" 2> "$wa/err")
	e=$(cat "$wa/err")
	case $1 in
	bogus) [ "$got" = "$2" ] && [ "$(wc -l < "$wa/err")" = 1 ] &&
		[ "$e" = "fuse-backport: WHEN_AHEAD=later in $wa/conf is not serve or stock; serve is used" ] ;;
	*) [ "$got" = "$2" ] && [ -z "$e" ] ;;
	esac || { echo "got '$got', stderr '$e'" > "$work/err"; notok "WHEN_AHEAD, $1: want $2"; return; }
	ok "WHEN_AHEAD, $1: $got${e:+ ($e)}"
}
wa_case "no file" serve
wa_case "no key" serve "TAKEOVER=yes"
wa_case "stock" stock "WHEN_AHEAD=stock"
wa_case "\"stock\" in quotes" stock 'WHEN_AHEAD="stock"'
wa_case "'stock' in single quotes" stock "WHEN_AHEAD='stock'"
wa_case "blanks before the key" stock "  WHEN_AHEAD=stock"
wa_case "a CRLF line end" stock "$(printf 'WHEN_AHEAD=stock\r')"
wa_case "the last line counts" serve "$(printf 'WHEN_AHEAD=stock\nWHEN_AHEAD=serve')"
wa_case "a comment" serve "#WHEN_AHEAD=stock"
wa_case bogus serve "WHEN_AHEAD=later"

# --- dkms.conf's decision ----------------------------------------------------
# wa_hdr KVER VERSION FUSE: fake headers: a top Makefile with the version,
# a .config with CONFIG_FUSE_FS=FUSE
wa_hdr() {
	mkdir -p "$wa/h/$1"
	echo "$2" | awk -F. '{ printf "VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n", $1, $2, $3 }' > "$wa/h/$1/Makefile"
	printf 'CONFIG_FUSE_FS=%s\nCONFIG_MODULES=y\n' "$3" > "$wa/h/$1/.config"
}
wa_hdr "$next+deb12-amd64" "$next" y
wa_hdr "$checked+deb12-amd64" "$checked" y
wa_hdr 6.1.0-57-amd64 6.1.158 m
wa_hdr 6.12.0-55.24.1.el10_0.x86_64 6.12.0 m
wa_hdr 6.8.0-78-generic 6.8.0 y
# wa_dkms KVER SETTING: what scripts/flavor.sh (dkms.conf) decides: the
# flavor on stdout, the reason for none on stderr (the gate lets fake
# headers through: it cannot tell)
wa_dkms() {
	printf 'WHEN_AHEAD=%s\n' "$2" > "$wa/conf"
	env -u FB_PREFIX FB_CONF_FILE="$wa/conf" FB_GATE_CACHE="$wa/gate" \
		bash "$src/scripts/flavor.sh" "$1" "$wa/h/$1" > "$wa/out" 2> "$wa/err"
	echo $? > "$wa/rc"
}
k=$next+deb12-amd64
wa_dkms "$k" stock
want="ahead of our fs/fuse: $k (Linux $next) is newer than $checked, the newest release checked to carry our fs/fuse (base 6.12: "
if [ "$(cat "$wa/rc")" = 3 ] && grep -qF "$want" "$wa/err" && grep -q "; WHEN_AHEAD=stock in $wa/conf keeps its own FUSE\$" "$wa/err"; then
	ok "dkms.conf, WHEN_AHEAD=stock: $k builds nothing: $(cat "$wa/err")"
else
	echo "exit $(cat "$wa/rc"): $(cat "$wa/err")" > "$work/err"
	notok "dkms.conf, WHEN_AHEAD=stock: $k (Linux $next, ahead of $checked) builds nothing, with the reason"
fi
for kc in "$k serve" "$checked+deb12-amd64 stock" "6.1.0-57-amd64 stock" \
	"6.12.0-55.24.1.el10_0.x86_64 stock" "6.8.0-78-generic stock"; do
	# shellcheck disable=SC2086 # KVER and SETTING
	wa_dkms $kc
	if [ "$(cat "$wa/rc")" = 0 ] && grep -Eq '^(renamed|dropin) ' "$wa/out" && [ ! -s "$wa/err" ]; then
		ok "dkms.conf, $kc: built ($(cat "$wa/out"))"
	else
		echo "exit $(cat "$wa/rc"): $(cat "$wa/out") $(cat "$wa/err")" > "$work/err"
		notok "dkms.conf, $kc: built, not left to its own FUSE"
	fi
done

# With serve, a read of dkms.conf that may build says it in one line (dkms
# shows that, not the build's output); dkms status's read says nothing.
# wa_read ACTION: dkms.conf sourced as dkms does for ACTION, its stderr
wa_read() {
	printf 'WHEN_AHEAD=serve\n' > "$wa/conf"
	# shellcheck disable=SC2016 # expanded by bash -c
	env -u FB_PREFIX FB_CONF_FILE="$wa/conf" FB_GATE_CACHE="$wa/gate" action="$1" kernelver="$k" \
		kernel_source_dir="$wa/h/$k" dkms_tree="$wa/dkmstree" FB_IN_AUTOINSTALL_CHECK=1 \
		bash -c '. "$1"' _ "$src/dkms.conf" 2>&1 > /dev/null | grep 'ahead'
}
b=$(wa_read build)
st=$(wa_read status)
if [ "$b" = "fuse-backport: building for it all the same: $want$checked) (WHEN_AHEAD=serve)" ] && [ -z "$st" ]; then
	ok "dkms.conf, WHEN_AHEAD=serve: a build's read says it in one line ($b); dkms status's says nothing"
else
	echo "build: '$b'; status: '$st'" > "$work/err"
	notok "dkms.conf, WHEN_AHEAD=serve: a build's read says it in one line; dkms status's says nothing"
fi

# --- modprobe's fallback -----------------------------------------------------
# A fake tree for this host's kernel: the kernel's own cuse.ko and ours
# under updates/dkms (depmod: modprobe's order), objects with a .modinfo;
# modprobe and insmod are stand-ins that log their arguments.
kv=$(uname -r)
mr=$wa/root/lib/modules/$kv
mkdir -p "$mr/kernel/fs/fuse" "$mr/updates/dkms" "$wa/bin"
# wa_ko FILE INFO: an object whose .modinfo is INFO (\0-separated)
wa_ko() {
	printf 'static const char m[] __attribute__((section(".modinfo"), used)) =\n"%s\\0license=GPL";\n' "$2" > "$wa/m.c" &&
		cc -c -o "$1" "$wa/m.c"
}
# the stand-in insmod fails where FB_WA_INSMOD_RC says so
for t in modprobe insmod; do
	printf '#!/bin/sh\necho "%s $*" >> "%s/calls"\n' "$t" "$wa" > "$wa/bin/$t"
	chmod 755 "$wa/bin/$t"
done
# shellcheck disable=SC2016 # the stand-in's own variable
echo 'exit "${FB_WA_INSMOD_RC:-0}"' >> "$wa/bin/insmod"
# wa_load AGE SETTING: modprobe-stock cuse with ours built as AGE
wa_load() {
	wa_ko "$mr/kernel/fs/fuse/cuse.ko" "name=cuse" &&
		wa_ko "$mr/updates/dkms/cuse.ko" "name=cuse\\0version=6.12.118+fb5\\0fb_fuse_age=$1" &&
		echo kernel/fs/fuse/cuse.ko > "$mr/modules.order" &&
		depmod -b "$wa/root" "$kv" 2> /dev/null || return 1
	printf 'WHEN_AHEAD=%s\n' "$2" > "$wa/conf"
	: > "$wa/calls"
	FB_CONF_FILE=$wa/conf FB_MODROOT=$wa/root/lib/modules FB_MODPROBE=$wa/bin/modprobe FB_INSMOD=$wa/bin/insmod \
		sh "$src/scripts/modprobe-stock.sh" cuse > /dev/null 2> "$wa/err"
}
if ! command -v depmod > /dev/null || ! command -v cc > /dev/null; then
	notok "modprobe's fallback with WHEN_AHEAD: depmod and cc are needed"
else
	# wa_judge DESC CALLS LINE: the last wa_load exited 0, the stand-ins were
	# called as CALLS (one call a ";"-ended entry), and stderr has LINE (a
	# regex of a whole line) or, with LINE empty, nothing
	wa_judge() {
		rc=$?
		if [ $rc = 0 ] && [ "$(tr '\n' ';' < "$wa/calls")" = "$2" ] &&
			if [ -n "$3" ]; then grep -q "^$3\$" "$wa/err"; else [ ! -s "$wa/err" ]; fi; then
			ok "$1 ($(cat "$wa/err"))"
		else
			echo "exit $rc; calls: $(cat "$wa/calls"); stderr: $(cat "$wa/err")" > "$work/err"
			notok "$1"
		fi
	}
	wa_load ahead stock
	wa_judge "modprobe's fallback, ours built for an ahead kernel and WHEN_AHEAD=stock: the kernel's own loads" \
		"insmod $mr/kernel/fs/fuse/cuse.ko;" \
		"fuse-backport: cuse: ours ($mr/updates/dkms/cuse.ko) was built for a kernel ahead of its fs/fuse, and WHEN_AHEAD=stock; the kernel's own $mr/kernel/fs/fuse/cuse.ko serves instead"
	# the kernel's own does not load (a fuse of ours already loaded, whose
	# symbols it lacks): ours rather than none, and one line
	FB_WA_INSMOD_RC=1 wa_load ahead stock
	wa_judge "modprobe's fallback, WHEN_AHEAD=stock and the kernel's own fails to load: ours loads" \
		"insmod $mr/kernel/fs/fuse/cuse.ko;modprobe --ignore-install cuse;" \
		"fuse-backport: cuse: the kernel's own did not load; ours is loaded instead (WHEN_AHEAD=stock)"
	for as in "ahead serve" "current stock"; do
		# shellcheck disable=SC2086 # two words
		wa_load $as
		wa_judge "modprobe's fallback, ours built as ${as% *}, WHEN_AHEAD=${as#* }: ours loads (modprobe --ignore-install cuse)" \
			"modprobe --ignore-install cuse;" ""
	done
fi
