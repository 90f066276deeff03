# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-only
# What a base needs of a kernel, by probe: sourced by scripts/build.sh and
# scripts/gate.sh. A need is a word (backports/BASE/required: one a line;
# PASSTHROUGH_NEEDS of the pin: space separated): HAVE_* names joined by
# '+' (all of them) in alternatives joined by '|' (any one), e.g.
#   HAVE_A                     the kernel has A
#   HAVE_A|HAVE_B              A or B (the variants of one API)
#   HAVE_A+HAVE_M|HAVE_B+HAVE_N A with M, or B with N
# The HAVE_* names are those of scripts/probe.sh (HAVE_EXPORT_* included).

# fb_required FILE: the needs of a required file, space separated
fb_required() {
	[ -f "$1" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]//g' "$1" | grep . | tr '\n' ' '
}

# fb_haves CONFIG.H: the HAVE_* names a probe.sh header defines, space separated
fb_haves() {
	sed -n 's/^#define \(HAVE_[A-Z0-9_]*\) 1$/\1/p' "$1" | tr '\n' ' '
}

# fb_need_names NEEDS: every HAVE_* name the needs mention, one a line
fb_need_names() {
	for fb_w in $1; do
		echo "$fb_w" | tr '|+' '  ' | tr ' ' '\n'
	done | grep . | sort -u
}

# fb_unmet NEEDS HAVES: the needs that HAVES (space separated) does not meet,
# space separated; nothing when all are met
fb_unmet() {
	fb_u=""
	for fb_w in $1; do
		fb_met=0
		for fb_alt in $(echo "$fb_w" | tr '|' ' '); do
			fb_all=1
			for fb_h in $(echo "$fb_alt" | tr '+' ' '); do
				case " $2 " in *" $fb_h "*) ;; *) fb_all=0 ;; esac
			done
			if [ $fb_all = 1 ]; then
				fb_met=1
				break
			fi
		done
		[ $fb_met = 1 ] || fb_u="$fb_u $fb_w"
	done
	echo "${fb_u# }"
}
