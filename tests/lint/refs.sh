#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# No tracker numbers or private tags in tracked files: a reader of the tree
# has neither the tracker nor the notes they point into, so each reference
# must be the fact it stood for. Prints FILE:LINE: MATCH for every hit (a
# reference broken across lines counts at its first line), then
# "refs: N hits in M files"; exit 1 when there is any, 2 on bad usage.
#
# usage: tests/lint/refs.sh [FILE...]   (default: git ls-files of the checkout)
# The patterns (Perl regular expressions, one a line after "pattern "), the
# paths left out ("skip ", a Perl regular expression on the path) and the
# words allowed in spite of a pattern ("allow ", matched against the hit)
# are the data below. Binary files are left out.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2

data='
# a tracker issue, with or without blanks, a hyphen or a #, across lines:
# "issue 30", "Issue 27, item 3", "issue30-memcg", "issue-26", "issues 29"
pattern (?i:\bissues?[\s_-]*#?\d+)
# a session tag, a helper'"'"'s tag, a step of a session: "s48", "h30g-D2",
# "h30k", "lead-D3", "R2", "stop 47" (s16, s32, s64: kernel types)
pattern \bs(?!(?:16|32|64)\b)\d\d\b
pattern \b[a-z]{1,3}\d\d[a-z]?-[A-Z]\d+\b
pattern \bh\d\d[a-z]\b
pattern \blead-[A-Z]\d*\b
pattern \bR\d\b
pattern (?i:\bstop\s+\d+\b)
# this file: its examples above
skip ^tests/lint/refs\.sh$
'

# shellcheck disable=SC2016 # Perl's own variables
check='
my (@pat, @skip, @allow);
for (split /\n/, $ENV{FB_REFS_DATA}) {
	push @pat, $1 if /^pattern (.+)$/;
	push @skip, $1 if /^skip (.+)$/;
	push @allow, $1 if /^allow (.+)$/;
}
local $/ = "\0";
my @files = @ARGV ? @ARGV : map { chomp; $_ } <STDIN>;
my ($hits, %in) = (0);
undef $/;
FILE: for my $f (@files) {
	next if grep { $f =~ /$_/ } @skip;
	next unless -f $f && !-B $f;
	open(my $fh, "<", $f) or do { print STDERR "refs: cannot read $f: $!\n"; exit 2 };
	my $t = <$fh>;
	close $fh;
	for my $p (@pat) {
		while ($t =~ /$p/g) {
			my $m = $&;
			next if grep { $m =~ /$_/ } @allow;
			my $l = 1 + (substr($t, 0, $-[0]) =~ tr/\n//);
			$m =~ s/\s+/ /g;
			print "$f:$l: $m\n";
			$hits++;
			$in{$f} = 1;
		}
	}
}
printf "refs: %d hits in %d files\n", $hits, scalar keys %in;
exit($hits ? 1 : 0);
'
if [ $# = 0 ]; then
	git rev-parse --git-dir > /dev/null 2>&1 || { echo "refs: $top is not a git checkout: name the files" >&2; exit 2; }
	git ls-files -z | FB_REFS_DATA=$data perl -e "$check"
else
	FB_REFS_DATA=$data perl -e "$check" "$@"
fi
