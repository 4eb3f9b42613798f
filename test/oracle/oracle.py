#!/usr/bin/env python3
"""Independent oracle for quelkit: PARTS and Wisconsin data, their CSV and the paper's queries.

Written from docs (DESIGN.md "The PARTS data", "The Wisconsin data", "Result
checksum", "The paper's queries", "Aggregates") alone, with the Python standard library, so quelkit's generator,
checksum and back ends are checked against something that shares no code.

  oracle.py csv --rows N [--wide]   the CSV `quelkit gen` / write_parts_csv writes
  oracle.py queries --rows N        (a)-(e) on N narrow tuples, as JSON ((e) as a full scan)
  oracle.py keyed --rows N          (e)-(i) on N wide tuples, as JSON
  oracle.py wisconsin --rows N [--seed S]
                                    the CSV `quelkit gen wisconsin` writes
  oracle.py wisconsin-queries       "rows checksum" of each checksum case of
                                    test/queries/wisconsin.quel, in order
  oracle.py aggregate-queries       "rows checksum" of each checksum case of
                                    test/queries/aggregates.quel, in order
  oracle.py expected                all of the above the test suite checks
  oracle.py difftest                `quelkit difftest`'s oracle of the random
                                    queries that raise: JSON Lines on stdin
                                    (the heaps, then one typed query a line),
                                    the first error of each on stdout

Regenerate the committed answers with:
  python3 test/oracle/oracle.py expected > test/oracle/expected.json
"""

import argparse
import json
import math
import re
import struct
import sys

M64 = (1 << 64) - 1

NAMES = ("processor bolt nut screw washer gear cam cog spring bearing shaft "
         "pulley valve gasket piston rotor sensor relay switch fuse").split()
COLORS = "red green blue white yellow gray brown".split()


class SplitMix64:
    def __init__(self, seed=1981):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        return mix(self.s)


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def parts(n):
    """The N PARTS rows as dicts, and the generator positioned after them."""
    g = SplitMix64()
    rows = []
    for pnum in range(1, n + 1):
        a, b, c, d = g.next(), g.next(), g.next(), g.next()
        color = "black" if b % 100 == 0 else COLORS[(b % 100) % 7]
        rows.append({"pnum": pnum, "pname": NAMES[a % 20], "color": color,
                     "weight": 1 + c % 100, "qoh": d % 500})
    return rows, g


def held_back(n):
    """The pnums the keyed setup appends after building the structure."""
    _, g = parts(n)
    # round-half-up(n * 130 / 3360) in exact rational arithmetic
    count = (2 * n * 130 + 3360) // (2 * 3360)
    seen, order = set(), []
    while len(order) < count:
        k = 1 + g.next() % n
        if k not in seen:
            seen.add(k)
            order.append(k)
    return order


# ---- the Wisconsin data ----------------------------------------------------

WISCONSIN_INTS = ("unique1 unique2 two four ten twenty hundred thousand "
                  "twothousand fivethousand tenthousand odd even").split()


def wisconsin_str(v):
    letters = ""
    for _ in range(7):
        letters = chr(ord("A") + v % 26) + letters
        v //= 26
    return letters + "X" * 45


def wisconsin(n, seed=1983):
    """The N tuples in insertion (unique2) order, as dicts."""
    g = SplitMix64(seed)
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = g.next() % (i + 1)
        perm[i], perm[j] = perm[j], perm[i]
    rows = []
    for k in range(n):
        u1 = perm[k]
        r = {"unique1": u1, "unique2": k}
        for name, m in (("two", 2), ("four", 4), ("ten", 10), ("twenty", 20),
                        ("hundred", 100), ("thousand", 1000),
                        ("twothousand", 2000), ("fivethousand", 5000),
                        ("tenthousand", 10000)):
            r[name] = u1 % m
        r["odd"] = 2 * r["hundred"] + 1
        r["even"] = 2 * r["hundred"]
        r["stringu1"] = wisconsin_str(u1)
        r["stringu2"] = wisconsin_str(k)
        r["string4"] = "AHOV"[k % 4] * 4 + "X" * 48
        rows.append(r)
    return rows


def wisconsin_csv(n, seed):
    cols = WISCONSIN_INTS + ["stringu1", "stringu2", "string4"]
    lines = [",".join(cols)]
    for r in wisconsin(n, seed):
        lines.append(",".join(str(r[c]) for c in cols))
    return "\n".join(lines) + "\n"


# ---- checksum: sum mod 2^64 of mix(FNV-1a-64(row encoding)) ----------------

def fnv1a64(data):
    h = 0xCBF29CE484222325
    for byte in data:
        h = ((h ^ byte) * 0x100000001B3) & M64
    return h


def encode(row):
    """Each value is ('i', int), ('f', float) or ('c', str)."""
    out = bytearray()
    for kind, v in row:
        if kind == "i":
            out += struct.pack("<q", v)
        elif kind == "f":
            out += struct.pack("<d", v)
        else:
            out += v.rstrip(" ").encode("latin-1") + b"\x00"
    return bytes(out)


def result(rows):
    total = 0
    for row in rows:
        total = (total + mix(fnv1a64(encode(row)))) & M64
    return {"rows": len(rows), "checksum": "%016x" % total}


# ---- the paper's queries, evaluated directly --------------------------------

LOG95 = math.log(9.5)


def below_log(qoh, weight):
    # QUEL: i2 < f8 * i2 is compared in f8
    return float(qoh) < LOG95 * float(weight)


def queries(n):
    ps, _ = parts(n)
    out = {}
    out["a"] = result([[("i", 1)]])
    out["b"] = result([[("i", p["pnum"])] for p in ps])
    out["c"] = result([[("c", p["pname"]), ("i", p["pnum"])] for p in ps
                       if p["pnum"] > 3 or p["pname"] == "processor"
                       or p["color"] == "black"])
    out["d"] = result([[("i", p["pnum"])] for p in ps
                       if below_log(p["qoh"], p["weight"])])
    # (e) as a full scan of the heap (the paper runs it on the keyed relation)
    out["e"] = result([[("i", p["qoh"])] for p in ps if p["pnum"] < 2500])
    return out


def keyed(n):
    # Results are bags, so the storage structure (and the held-back order)
    # does not change them: every one of the N tuples is in the relation.
    ps, _ = parts(n)
    by_pnum = {}
    for q in ps:
        by_pnum.setdefault(q["pnum"], []).append(q)

    def pairs(p_filter):
        for p in ps:
            if not p_filter(p):
                continue
            for q in by_pnum.get(p["pnum"], []):
                yield p, q

    out = {}
    out["e"] = result([[("i", p["qoh"])] for p in ps if p["pnum"] < 2500])
    out["f"] = result([[("i", p["qoh"]), ("i", q["qoh"])]
                       for p, q in pairs(lambda p: True)])
    out["g"] = result([[("i", p["qoh"]), ("i", q["qoh"])]
                       for p, q in pairs(lambda p: p["color"] == "black")])
    out["h"] = result([[("i", p["qoh"])]
                       for p, q in pairs(lambda p: p["pnum"] < 2500)])
    out["i"] = result([[("i", p["qoh"]), ("i", q["qoh"])]
                       for p, q in pairs(lambda p: p["color"] == "black"
                                         and below_log(p["qoh"], p["weight"]))
                       if below_log(q["qoh"], p["weight"])])
    return out


# ---- the Wisconsin queries of test/queries/wisconsin.quel ---------------------

def wisconsin_queries():
    """Rows and checksum of each checksum case of test/queries/wisconsin.quel,
    in the file's order, on the study's relations (DESIGN.md)."""
    onek, onek2 = wisconsin(1000), wisconsin(1000, 1984)
    tenk1, tenk2 = wisconsin(10000), wisconsin(10000, 1984)
    strings = ["stringu1", "stringu2", "string4"]

    def every(r):  # r.all
        return [("i", r[a]) for a in WISCONSIN_INTS] + [("c", r[a]) for a in strings]

    def ints(*vals):
        return [("i", v) for v in vals]

    def join(outer, inner, cond):
        return [(a, b) for a in outer for b in inner if cond(a, b)]

    hhhh = "HHHH" + "X" * 48
    out = [
        [every(r) for r in tenk1 if r["unique2"] > 1 and r["unique2"] < 102],
        [every(r) for r in tenk2 if r["unique2"] > 1 and r["unique2"] < 1002],
        [every(r) for r in tenk1 if r["unique1"] > 1 and r["unique1"] < 102],
        [every(r) for r in tenk2 if r["unique2"] == 1],
        [every(r) for r in onek],
        [every(r) for r in tenk1 if r["unique2"] < 5002 and r["unique2"] > 1],
        [every(a) + every(b) for a, b in join(onek, onek2, lambda a, b: a["unique2"] == b["unique2"])],
        [every(a) + ints(b["unique1"]) for a, b in
         join(onek, onek2, lambda a, b: a["unique2"] == b["unique2"] and b["unique2"] < 100)],
        [ints(a["unique2"], b["unique2"]) for a, b in
         join(onek, onek2, lambda a, b: b["unique2"] <= a["unique2"] <= b["unique2"] + 1)],
        [ints(a["unique1"], b["unique1"]) for a, b in
         join(onek, onek2[:10], lambda a, b: a["unique1"] < b["unique1"])],
        [every(r) for r in tenk1 if 4500 <= r["unique2"] < 5500],
        [ints(r["unique2"]) + [("c", r["stringu1"])] for r in onek
         if r["string4"] == hhhh and r["unique1"] < 100],
        [ints(a["unique2"], b["unique2"]) for a, b in
         join(tenk1[:50], tenk2, lambda a, b: a["unique1"] == b["unique1"])],
    ]
    return [result(rows) for rows in out]



# ---- aggregates (DESIGN.md "Aggregates"), on PARTS ---------------------------

def aggregate(fn, values):
    """One aggregate over the values that qualified, in scan order, as
    ('i' | 'f' | 'c', value). Over no rows every aggregate is 0 (or blanks)."""
    kinds = {k for k, _ in values}
    if fn.endswith("u"):
        seen, uniq = set(), []
        for k, v in values:
            key = v.replace(" ", "") if k == "c" else (0.0 if v == 0 else v)
            if key not in seen:
                seen.add(key)
                uniq.append((k, v))
        values = uniq
    nums = [v for _, v in values]
    if fn in ("count", "countu"):
        return ("i", len(nums))
    if fn == "any":
        return ("i", 1 if nums else 0)
    if fn in ("sum", "sumu"):
        if kinds <= {"i"}:
            total = 0
            for v in nums:
                total += v
                if not -2**31 <= total < 2**31:
                    raise OverflowError(fn)
            return ("i", total)
        total = 0.0
        for v in nums:
            total += float(v)
        return ("f", total)
    if fn in ("avg", "avgu"):
        total = 0.0
        for v in nums:
            total += float(v)
        return ("f", total / len(nums) if nums else 0.0)
    kind = values[0][0] if values else None
    if not values:
        return ("i", 0)  # the corpus takes min/max over no rows of integers only
    key = (lambda v: v.replace(" ", "")) if kind == "c" else (lambda v: v)
    best = values[0][1]
    for _, v in values[1:]:
        if (key(v) < key(best)) if fn == "min" else (key(v) > key(best)):
            best = v
    return (kind, best)


def by_aggregate(rows, fn, arg, by, qual):
    """An aggregate function: {by value: aggregate}, over every by value of
    the whole relation, each aggregating the values its qualification keeps."""
    groups = {}
    for r in rows:
        groups.setdefault(by(r), [])
    for r in rows:
        if qual(r):
            groups[by(r)].append(arg(r))
    return {k: aggregate(fn, vs) for k, vs in groups.items()}


def by_list_rule(named, by_lists):
    """INGRES's by-list rule (DESIGN.md "Aggregates"). named: the attributes
    an outer query names outside its aggregates ("p.pname"); by_lists: its
    aggregate functions' by lists, in text order, each a tuple of attributes.
    Each function is joined back on its own by values, so those are
    references too. A by list applies when the query names its variables
    only through its values (at least once); they then become its
    temporary's. Returns the index of the first that applies (the query
    ranges over its groups), or None (one row per tuple)."""
    refs = list(named) + [b for bl in by_lists for b in bl]
    first = None
    for k, bl in enumerate(by_lists):
        variables = {b.split(".")[0] for b in bl}
        mine = [r for r in refs if r.split(".")[0] in variables]
        if mine and all(r in bl for r in mine):
            refs = ["#%d" % k if r in bl else r for r in refs]
            if first is None:
                first = k
    return first


def aggregate_queries():
    """Rows and checksum of each checksum case of test/queries/aggregates.quel,
    in the file's order, on 210 PARTS tuples."""
    ps, _ = parts(210)
    I = lambda a: lambda r: ("i", r[a])
    C = lambda a: lambda r: ("c", r[a])
    every = lambda r: True

    def simple(fn, arg, qual=every):
        return aggregate(fn, [arg(r) for r in ps if qual(r)])

    out = []
    # 1: simple aggregates
    out.append([[simple("count", I("pnum")), simple("sum", I("qoh"), lambda r: r["weight"] > 10),
                 simple("avg", I("qoh")), simple("min", C("pname")), simple("max", I("weight")),
                 simple("countu", C("color"))]])
    def over(named, by_lists, groups):
        """The rows an outer query ranges over: one per group (the groups'
        keys, sorted: the checksum ignores order) or one per tuple of p."""
        if by_list_rule(named, by_lists) is None:
            return ps
        attrs = [b.split(".")[1] for b in by_lists[by_list_rule(named, by_lists)]]
        return [dict(zip(attrs, k if isinstance(k, tuple) else (k,))) for k in sorted(groups)]

    # 2: p.pnum keeps p: one row per tuple
    avg_by_color = by_aggregate(ps, "avg", I("qoh"), lambda r: r["color"], every)
    rows = over(["p.pnum", "p.color"], [("p.color",)], avg_by_color)
    out.append([[("i", r["pnum"]), ("c", r["color"]), avg_by_color[r["color"]]] for r in rows])
    # 3: groups emptied by the inner qualification; p is named only by its
    # colour: one row per colour (unique changes nothing)
    n = by_aggregate(ps, "count", I("pnum"), lambda r: r["color"], lambda r: r["qoh"] > 400)
    s = by_aggregate(ps, "sum", I("qoh"), lambda r: r["color"], lambda r: r["qoh"] > 400)
    rows = over(["p.color"], [("p.color",), ("p.color",)], n)
    out.append(sorted({(("c", r["color"]), n[r["color"]], s[r["color"]]) for r in rows}))
    # 4: an aggregate function in the qualification, p.pnum and p.qoh keep p
    rows = over(["p.pnum", "p.qoh"], [("p.color",)], avg_by_color)
    out.append([[("i", r["pnum"])] for r in rows if float(r["qoh"]) > avg_by_color[r["color"]][1] + 200])
    # 5: the unique variants by pname; p is named only by its pname: one row per pname
    su = by_aggregate(ps, "sumu", I("weight"), lambda r: r["pname"], lambda r: r["color"] == "red")
    au = by_aggregate(ps, "avgu", I("qoh"), lambda r: r["pname"], every)
    rows = over(["p.pname"], [("p.pname",), ("p.pname",)], su)
    out.append([[("c", r["pname"]), su[r["pname"]], au[r["pname"]]] for r in rows])
    # 6: every aggregate over no rows
    none = lambda r: r["qoh"] > 1000
    out.append([[simple(fn, I("qoh"), none) for fn in
                 ("count", "countu", "sum", "sumu", "avg", "avgu", "min", "max", "any")]])
    # 7: any by colour, two by values
    a = by_aggregate(ps, "any", I("pnum"), lambda r: (r["color"], r["pname"]), lambda r: r["weight"] > 98)
    rows = over(["p.color", "p.pname"], [("p.color", "p.pname")], a)
    out.append(sorted({(("c", r["color"]), ("c", r["pname"]), a[(r["color"], r["pname"])]) for r in rows}))
    return [result(rows) for rows in out]

# ---- CSV ---------------------------------------------------------------------

def csv_text(n, wide):
    # The wide variant adds its filler as a sixth column (c166), all blanks:
    # written, like every value, without trailing blanks, so empty.
    ps, _ = parts(n)
    filler = "," if wide else ""
    lines = ["pnum,pname,color,weight,qoh" + (",filler" if wide else "")]
    for p in ps:
        lines.append("%d,%s,%s,%d,%d%s" % (p["pnum"], p["pname"], p["color"],
                                           p["weight"], p["qoh"], filler))
    return "\n".join(lines) + "\n"


# ---- difftest: the first runtime error of a random query -----------------
#
# From DESIGN.md "Types and arithmetic", "Characters and patterns" and
# "Evaluation order": tuples in scan order; per tuple the qualification, then
# (if it holds) the targets left to right; and/or left to right, stopping at
# the operand that decides; the first error ends the statement. Integers
# compute in i4, f4 rounds each result to single precision (computed in double
# and rounded: exact for + - * / of f4 operands), every float result must be
# finite. quelkit sends the typed IR as the binder made it (ops.def's typed
# operator names), so this evaluates what quelkit runs, by its own rules.

I4_MIN, I4_MAX = -(1 << 31), (1 << 31) - 1
RANGES = {"I1": (-128, 127), "I2": (-32768, 32767), "I4": (I4_MIN, I4_MAX)}
E_OVERFLOW, E_DIV_ZERO, E_MOD_ZERO, E_SQRT_NEG, E_LOG_DOMAIN, E_CONVERT_RANGE, E_FLOAT_RESULT = range(1, 8)


class Raised(Exception):
    def __init__(self, code, node):
        super().__init__(code)
        self.code, self.pos = code, node["pos"]


class Skip(Exception):
    """A query this oracle does not evaluate (the reason is counted)."""


def decode(t, v):
    if t == "f4":
        return struct.unpack("<f", struct.pack("<I", v))[0]
    if t == "f8":
        return struct.unpack("<d", struct.pack("<Q", v))[0]
    if t == "c":
        return bytes.fromhex(v)
    return v


def to_f4(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:  # rounds past f4's range
        return math.copysign(math.inf, x)


def finite(x, node):
    if math.isinf(x) or math.isnan(x):
        raise Raised(E_FLOAT_RESULT, node)
    return x


def i4(x, node):
    if not I4_MIN <= x <= I4_MAX:
        raise Raised(E_OVERFLOW, node)
    return x


def trunc_div(a, b):
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def libm(f, *args):
    """C's result for a math function: inf on overflow, NaN on a domain error."""
    try:
        return f(*args)
    except OverflowError:
        return math.inf
    except ValueError:
        return math.nan


def pattern_regex(pat):
    """A QUEL pattern (bytes) as a regular expression over a squeezed value:
    its blanks are dropped (INGRES ignores every blank, an escaped one too),
    and a backslash makes the character after it ordinary."""
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i:i + 1]
        if c == b" ":
            pass
        elif c == b"*":
            out.append(b".*")
        elif c == b"?":
            out.append(b".")
        elif c == b"\\" and i + 1 < n:
            i += 1
            if pat[i:i + 1] != b" ":
                out.append(re.escape(pat[i:i + 1]))
        elif c == b"[":
            j, members, neg = i + 1, [], False
            if j < n and pat[j:j + 1] == b"^":
                neg, j = True, j + 1
            first = True
            while j < n and (pat[j:j + 1] != b"]" or first):
                first = False
                lo = pat[j]
                if lo == 0x5C and j + 1 < n:
                    j += 1
                    lo = pat[j]
                j += 1
                hi = lo
                if j + 1 < n and pat[j:j + 1] == b"-" and pat[j + 1:j + 2] != b"]":
                    hi = pat[j + 1]
                    if hi == 0x5C and j + 2 < n:
                        j += 1
                        hi = pat[j + 1]
                    j += 2
                members.append((lo, hi))
            if j >= n:
                raise Skip("unclosed class")
            cls = b"".join(b"\\x%02x-\\x%02x" % (lo, hi) for lo, hi in members if lo <= hi)
            if cls:
                out.append(b"[" + (b"^" if neg else b"") + cls + b"]")
            else:  # only empty ranges: nothing is a member
                out.append(b"." if neg else b"(?!)")
            i = j
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile(b"".join(out), re.DOTALL)


def strip(b):
    return b.rstrip(b" ")


def squeeze(b):
    """What INGRES's comparison sees of a value: every blank ignored."""
    return b.replace(b" ", b"")


COMPARE = {"EQ": lambda a, b: a == b, "NE": lambda a, b: a != b, "LT": lambda a, b: a < b,
           "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b, "GE": lambda a, b: a >= b}
ARITH = {"ADD": lambda a, b: a + b, "SUB": lambda a, b: a - b, "MUL": lambda a, b: a * b}
FUNCS = {"EXP": math.exp, "SIN": math.sin, "COS": math.cos, "ATAN": math.atan}


def evaluate(n, tup):
    op, kids = n["op"], n["kids"]
    if op == "CONST":
        return decode(n["type"], n["val"])
    if op == "ATTR":
        if n["var"] != 0:
            raise Skip("more than one variable")
        return tup[n["attr"]]
    if op in ("AND", "OR"):
        for k in kids:
            v = evaluate(k, tup)
            if bool(v) == (op == "OR"):
                return int(v != 0)
        return int(op == "AND")
    if op == "NOT":
        return int(not evaluate(kids[0], tup))
    name, _, t = op.partition("_")
    if name == "CVT":
        frm, to = t.split("_")
        a = evaluate(kids[0], tup)
        if frm in RANGES and to in RANGES:
            lo, hi = RANGES[to]
            if not lo <= a <= hi:
                raise Raised(E_CONVERT_RANGE, n)
            return a
        if to in RANGES:  # a float to an integer: truncated toward zero
            if math.isnan(a) or math.isinf(a):
                raise Raised(E_CONVERT_RANGE, n)
            v = math.trunc(a)
            lo, hi = RANGES[to]
            if not lo <= v <= hi:
                raise Raised(E_CONVERT_RANGE, n)
            return v
        if to == "F4":
            return finite(to_f4(float(a)), n)
        return float(a)
    a = evaluate(kids[0], tup)
    b = evaluate(kids[1], tup) if len(kids) > 1 else None
    if name in COMPARE:
        if t == "C":
            a, b = squeeze(a), squeeze(b)
        return int(COMPARE[name](a, b))
    if name in ("MATCH", "NOMATCH"):
        hit = pattern_regex(b).fullmatch(squeeze(a)) is not None
        return int(hit == (name == "MATCH"))
    if name in ARITH:
        if t == "I4":
            return i4(ARITH[name](a, b), n)
        v = ARITH[name](a, b)
        return finite(to_f4(v) if t == "F4" else v, n)
    if name == "DIV":
        if b == 0:
            raise Raised(E_DIV_ZERO, n)
        if t == "I4":
            return i4(trunc_div(a, b), n)
        return finite(to_f4(a / b) if t == "F4" else a / b, n)
    if name == "MOD":
        if b == 0:
            raise Raised(E_MOD_ZERO, n)
        return a - b * trunc_div(a, b)  # the sign of the dividend
    if name == "NEG":
        return i4(-a, n) if t == "I4" else -a
    if name == "ABS":
        return i4(abs(a), n) if t == "I4" else abs(a)
    if name == "POW":
        return finite(libm(math.pow, a, b), n)
    if name == "SQRT":
        if a < 0:
            raise Raised(E_SQRT_NEG, n)
        return finite(math.sqrt(a), n)
    if name == "LOG":
        if not a > 0:
            raise Raised(E_LOG_DOMAIN, n)
        return finite(math.log(a), n)
    if name in FUNCS:
        return finite(libm(FUNCS[name], a), n)
    if name == "CONCAT":
        # never trimmed to nothing (the manual): an all-blank a keeps one blank
        return (strip(a) or a[:1]) + b
    raise Skip("operator " + name.lower())


def first_error(q, relations):
    """The first error of q over the heaps: {code, line, col, relation, tuple}, or None."""
    if q["kind"] != "retrieve":
        raise Skip("update")
    if len(q["vars"]) > 1:
        raise Skip("more than one variable")
    if q["vars"]:
        rel = q["vars"][0]
        scan = [(i + 1, t) for i, t in enumerate(relations[rel])]
    else:
        rel, scan = "", [(1, [])]  # no relation: evaluated once, as its one tuple
    for ordinal, tup in scan:
        try:
            if q["qual"] is not None and not evaluate(q["qual"], tup):
                continue
            for t in q["targets"]:
                evaluate(t, tup)
        except Raised as e:
            return {"code": e.code, "line": e.pos[0], "col": e.pos[1], "relation": rel, "tuple": ordinal}
    return None


def difftest_server(inp, out):
    head = json.loads(inp.readline())
    relations = {}
    for name, r in head["relations"].items():
        types = [a["type"] for a in r["attrs"]]
        relations[name] = [[decode(t, v) for t, v in zip(types, tup)] for tup in r["tuples"]]
    out.write('{"ready":true}\n')
    out.flush()
    for line in inp:
        try:
            e = first_error(json.loads(line), relations)
            answer = {"status": "ok"} if e is None else dict(status="error", **e)
        except Skip as s:
            answer = {"status": "skip", "reason": str(s)}
        except RecursionError:
            answer = {"status": "skip", "reason": "too deep"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["csv", "queries", "keyed", "held", "wisconsin", "wisconsin-queries", "aggregate-queries", "expected", "difftest"])
    ap.add_argument("--rows", type=int, default=3360)
    ap.add_argument("--wide", action="store_true")
    ap.add_argument("--seed", type=int, default=1983)
    args = ap.parse_args()
    # 0 rows is a header-only CSV, as `quelkit gen parts --rows 0` writes
    if args.command != "expected" and args.rows < 0:
        ap.error("--rows must be at least 0")
    if args.command == "difftest":
        difftest_server(sys.stdin, sys.stdout)
    elif args.command == "csv":
        sys.stdout.write(csv_text(args.rows, args.wide))
    elif args.command == "queries":
        print(json.dumps(queries(args.rows), sort_keys=True))
    elif args.command == "keyed":
        print(json.dumps(keyed(args.rows), sort_keys=True))
    elif args.command == "wisconsin":
        sys.stdout.write(wisconsin_csv(args.rows, args.seed))
    elif args.command == "wisconsin-queries":
        for r in wisconsin_queries():
            print("%d %s" % (r["rows"], r["checksum"]))
    elif args.command == "aggregate-queries":
        for r in aggregate_queries():
            print("%d %s" % (r["rows"], r["checksum"]))
    elif args.command == "held":
        print(json.dumps(held_back(args.rows)))
    else:
        doc = {"queries": {str(n): queries(n) for n in (1, 210, 3360)},
               "keyed": {"3360": keyed(3360)},
               "held_back": {"3360": held_back(3360)}}
        text = json.dumps(doc, indent=1, sort_keys=True)
        # keep the held-back key list on one line
        text = re.sub(r"\[\s*([-\d,\s]+?)\s*\]",
                      lambda m: "[" + " ".join(m.group(1).split()) + "]", text)
        print(text)


if __name__ == "__main__":
    main()
