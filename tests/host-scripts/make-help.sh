# SPDX-License-Identifier: GPL-2.0-only
# tests/host-scripts/run.sh: make help (dev/make-help.sh) lists every
# .PHONY target of the Makefile (make's own list, make -p) once, and names
# no target that is not one; the stages come in pipeline order; a "## "
# comment with an unknown stage is refused in one line. Sourced by it, in
# its shell and its TAP count ($top, $work, ok, notok). FB_MAKEFILE (a red
# run): another Makefile in the checkout.
# shellcheck shell=sh disable=SC2154

mh_mk=${FB_MAKEFILE:-Makefile}
mh_phony=$(make -C "$top" -pq -f "$mh_mk" help 2> /dev/null | sed -n 's/^\.PHONY: //p' | tr ' ' '\n' | sort -u)
make -s -C "$top" -f "$mh_mk" help > "$work/help" 2> "$work/err"
mh_rc=$?
mh_listed=$(sed -n 's/^  \([^ ][^ ]*\) .*/\1/p' "$work/help" | sort)
mh_miss=$(printf '%s\n' "$mh_phony" | while read -r t; do
	printf '%s\n' "$mh_listed" | grep -qx -- "$t" || printf '%s ' "$t"
done)
mh_extra=$(printf '%s\n' "$mh_listed" | while read -r t; do
	printf '%s\n' "$mh_phony" | grep -qx -- "$t" || printf '%s ' "$t"
done)
mh_dup=$(printf '%s\n' "$mh_listed" | uniq -d | tr '\n' ' ')
if [ $mh_rc = 0 ] && [ -n "$mh_phony" ] && [ -z "$mh_miss" ] && [ -z "$mh_extra" ] && [ -z "$mh_dup" ]; then
	ok "make help: a line for each of the $(printf '%s\n' "$mh_phony" | grep -c .) .PHONY targets, none other"
else
	echo "make help exit $mh_rc; no help line: ${mh_miss:-none}; not .PHONY: ${mh_extra:-none}; twice: ${mh_dup:-none}" >> "$work/err"
	notok "make help: a line for each .PHONY target, none other"
fi
# The stage headings: the pipeline's order, each once.
mh_order="pin import probes-and-shims build DKMS packages tests bench docs"
mh_seen=$(grep -v '^ ' "$work/help" | tr ' ' '-' | tr '\n' ' ' | sed 's/ $//')
mh_want=$(for s in $mh_order; do case " $mh_seen " in *" $s "*) printf '%s ' "$s" ;; esac; done | sed 's/ $//')
if [ -n "$mh_seen" ] && [ "$mh_seen" = "$mh_want" ]; then
	ok "make help: stages in pipeline order ($mh_seen)"
else
	echo "stages '$mh_seen', want them in the order '$mh_order'" > "$work/err"
	notok "make help: stages in pipeline order"
fi
printf 'x: ## build: fine\ny: ## nostage: what\n' > "$work/help.mk"
if sh "$top/dev/make-help.sh" "$work/help.mk" > "$work/out" 2> "$work/err"; then
	notok "make-help: a target with an unknown stage: succeeded"
elif [ "$(wc -l < "$work/err")" = 1 ] && grep -q '^make-help: target y: unknown stage "nostage"' "$work/err"; then
	ok "make-help: a target with an unknown stage: $(cat "$work/err")"
else
	notok "make-help: a target with an unknown stage: not the one line wanted"
fi
