# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Read a tier file (tests/tiers/*; the format is in tests/tiers/default).
# Sourced with FB_TOP set; FB_CHECK_FULL=1 picks the full tier.
#
#   tier_get KEY          the words of the first line KEY WORD...
#   tier_class KEY CLASS  the words of the first line KEY CLASS WORD...
#   tier_has KEY CLASS    whether such a line exists
#   tier_skip SECTION     the reason of the first skip line whose pattern
#                         matches SECTION; false when none does
tier=default
[ "${FB_CHECK_FULL:-0}" = 1 ] && tier=full
tier_file=$FB_TOP/tests/tiers/$tier
[ -r "$tier_file" ] || { echo "tier: cannot read $tier_file" >&2; exit 1; }

tier_get() {
	awk -v k="$1" '$1 == k { sub(/^[^ \t]+[ \t]+/, ""); print; exit }' "$tier_file"
}
tier_class() {
	awk -v k="$1" -v c="$2" '$1 == k && $2 == c { sub(/^[^ \t]+[ \t]+[^ \t]+[ \t]*/, ""); print; exit }' "$tier_file"
}
tier_has() {
	awk -v k="$1" -v c="$2" '$1 == k && $2 == c { f = 1; exit } END { exit !f }' "$tier_file"
}
tier_skip() {
	while read -r tk tpat treason; do
		[ "$tk" = skip ] || continue
		# shellcheck disable=SC2254 # the tier's section pattern
		case $1 in $tpat) echo "$treason"; return 0 ;; esac
	done < "$tier_file"
	return 1
}
