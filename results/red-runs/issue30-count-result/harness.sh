top=$(cd "$(dirname "$0")/../../.." && pwd); work=$(mktemp -d); tap_suite=count
. "$top/tests/lib/tap.sh"
ok() { tap_check 0 "$1"; }
notok() { tap_check 1 "$1"; [ -f "$work/err" ] && sed 's/^/#   /' "$work/err"; }
. "$top/tests/host-scripts/count.sh"
tap_done
