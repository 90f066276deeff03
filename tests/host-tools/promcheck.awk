# SPDX-License-Identifier: GPL-2.0-only
# promcheck.awk: a checker of the Prometheus text exposition format
# (version 0.0.4), for where promtool is not installed; run with LC_ALL=C.
# Checks: every sample line is NAME[{LABELS}] VALUE [TIMESTAMP]; names
# match [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*, each
# once in a sample; label values are quoted with only \\, \" and \n
# escaped; every name has one # TYPE line (and at most one # HELP) before
# its samples, and its lines form one group; no series (name and label
# set) twice. Only plain types are known (no _bucket, _sum, _count).
# Prints each sample as one JSON object per line, {"name", "labels",
# "value"} (the labels unescaped, then JSON-escaped), for jq; a fault is
# "promcheck: line N: WHY: LINE" on stderr and exit 1.
BEGIN {
	err = 0
	ctl = ""
	for (i = 1; i < 32; i++)
		ctl = ctl sprintf("%c", i)
	cur = ""
}

function fail(why) {
	printf "promcheck: line %d: %s: %s\n", NR, why, $0 > "/dev/stderr"
	err = 1
}

# enter NAME: lines of NAME begin or go on; a name met again after another's is a fault
function enter(name) {
	if (name == cur)
		return 1
	if (name in done) {
		fail("the lines of " name " are not one group")
		return 0
	}
	if (cur != "")
		done[cur] = 1
	cur = name
	return 1
}

/^#/ {
	if ($2 == "HELP" || $2 == "TYPE") {
		if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) {
			fail("bad metric name in # " $2)
			next
		}
		if (!enter($3))
			next
		if ($2 == "HELP") {
			if ($3 in help)
				fail("a second # HELP for " $3)
			help[$3] = 1
		} else {
			if ($3 in type)
				fail("a second # TYPE for " $3)
			else if ($3 in sampled)
				fail("# TYPE for " $3 " after its samples")
			if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/ || NF != 4)
				fail("bad # TYPE line")
			type[$3] = $4
		}
	}
	next
}

/^[ \t]*$/ { next }

{
	line = $0
	if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) {
		fail("a sample without a valid metric name")
		next
	}
	name = substr(line, 1, RLENGTH)
	rest = substr(line, RLENGTH + 1)
	if (!enter(name))
		next
	if (!(name in type)) {
		fail("a sample of " name " before (or without) its # TYPE")
		next
	}
	sampled[name] = 1
	nl = 0
	json = ""
	delete seenlabel
	if (substr(rest, 1, 1) == "{") {
		rest = substr(rest, 2)
		closed = 0
		while (rest != "") {
			if (substr(rest, 1, 1) == "}") {
				rest = substr(rest, 2)
				closed = 1
				break
			}
			if (!match(rest, /^[a-zA-Z_][a-zA-Z0-9_]*="/)) {
				fail("bad label name or no =\" after it")
				next
			}
			ln = substr(rest, 1, RLENGTH - 2)
			rest = substr(rest, RLENGTH + 1)
			if (ln in seenlabel) {
				fail("label " ln " twice")
				next
			}
			seenlabel[ln] = 1
			v = ""
			ended = 0
			while (rest != "") {
				c = substr(rest, 1, 1)
				rest = substr(rest, 2)
				if (c == "\"") {
					ended = 1
					break
				}
				if (c == "\\") {
					d = substr(rest, 1, 1)
					rest = substr(rest, 2)
					if (d == "\\")
						v = v "\\\\"
					else if (d == "\"")
						v = v "\\\""
					else if (d == "n")
						v = v "\\n"
					else {
						fail("bad escape \\" d " in label " ln)
						next
					}
				} else if (index(ctl, c)) {
					v = v sprintf("\\u%04x", index(ctl, c))
				} else {
					v = v c
				}
			}
			if (!ended) {
				fail("label " ln "'s value does not end")
				next
			}
			lab[++nl] = ln "\t" v
			json = json (nl > 1 ? "," : "") "\"" ln "\":\"" v "\""
			c = substr(rest, 1, 1)
			if (c == ",")
				rest = substr(rest, 2)
			else if (c != "}") {
				fail("no , or } after label " ln)
				next
			}
		}
		if (!closed) {
			fail("labels without }")
			next
		}
	}
	if (substr(rest, 1, 1) != " ") {
		fail("no blank before the value")
		next
	}
	n = split(substr(rest, 2), f, " ")
	if (n < 1 || n > 2 ||
	    (f[1] !~ /^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$/ && f[1] !~ /^(NaN|[-+]Inf)$/) ||
	    (n == 2 && f[2] !~ /^-?[0-9]+$/)) {
		fail("bad value or timestamp")
		next
	}
	# the series: the name and its labels, sorted
	for (i = 2; i <= nl; i++)
		for (j = i; j > 1 && lab[j - 1] > lab[j]; j--) {
			t = lab[j]
			lab[j] = lab[j - 1]
			lab[j - 1] = t
		}
	key = name
	for (i = 1; i <= nl; i++)
		key = key "\n" lab[i]
	if (key in series)
		fail("series seen before (line " series[key] ")")
	series[key] = NR
	printf "{\"name\":\"%s\",\"labels\":{%s},\"value\":\"%s\"}\n", name, json, f[1]
}

END {
	exit err
}
