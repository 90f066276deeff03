# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# FB_KLOG_RE: what a kernel log must not show (an extended regular
# expression for grep -E): warnings, oopses and BUGs, lockdep and KASAN
# reports, hung tasks, RCU stalls, call traces, refcount and list
# corruption, busy inodes at unmount. The one definition, sourced by the
# guest's per-suite scan (tests/lib/fuse.sh, fb_klog_clean), the drop-in
# suite's own window (tests/suites/dropin.sh) and the report's scan of the
# whole run's log (tests/vm/report.sh).
# shellcheck disable=SC2034 # read by the files that source this one
FB_KLOG_RE='WARNING:|BUG:|kernel BUG at|Oops|general protection|lockdep|refcount_t|list_add corruption|list_del corruption|blocked for more than|rcu_sched detected stall|rcu_preempt detected stall|rcu: INFO:|detected stalls on CPUs|Call Trace|Busy inodes|KASAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|sleeping function called from invalid context|DEBUG_LOCKS_WARN'
