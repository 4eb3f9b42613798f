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
            key = v.rstrip(" ") if k == "c" else (0.0 if v == 0 else v)
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
    key = (lambda v: v.rstrip(" ")) if kind == "c" else (lambda v: v)
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
    # 2: one row per tuple of p
    avg_by_color = by_aggregate(ps, "avg", I("qoh"), lambda r: r["color"], every)
    out.append([[("i", r["pnum"]), ("c", r["color"]), avg_by_color[r["color"]]] for r in ps])
    # 3: retrieve unique, groups emptied by the inner qualification
    n = by_aggregate(ps, "count", I("pnum"), lambda r: r["color"], lambda r: r["qoh"] > 400)
    s = by_aggregate(ps, "sum", I("qoh"), lambda r: r["color"], lambda r: r["qoh"] > 400)
    out.append([[("c", c), n[c], s[c]] for c in sorted(n)])
    # 4: an aggregate function in the qualification
    out.append([[("i", r["pnum"])] for r in ps if float(r["qoh"]) > avg_by_color[r["color"]][1] + 200])
    # 5: the unique variants by pname
    su = by_aggregate(ps, "sumu", I("weight"), lambda r: r["pname"], lambda r: r["color"] == "red")
    au = by_aggregate(ps, "avgu", I("qoh"), lambda r: r["pname"], every)
    out.append([[("c", r["pname"]), su[r["pname"]], au[r["pname"]]] for r in ps])
    # 6: every aggregate over no rows
    none = lambda r: r["qoh"] > 1000
    out.append([[simple(fn, I("qoh"), none) for fn in
                 ("count", "countu", "sum", "sumu", "avg", "avgu", "min", "max", "any")]])
    # 7: any by colour, two by values
    a = by_aggregate(ps, "any", I("pnum"), lambda r: (r["color"], r["pname"]), lambda r: r["weight"] > 98)
    out.append([[("c", c), ("c", nm), a[(c, nm)]] for (c, nm) in sorted(a)])
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["csv", "queries", "keyed", "held", "wisconsin", "wisconsin-queries", "aggregate-queries", "expected"])
    ap.add_argument("--rows", type=int, default=3360)
    ap.add_argument("--wide", action="store_true")
    ap.add_argument("--seed", type=int, default=1983)
    args = ap.parse_args()
    # 0 rows is a header-only CSV, as `quelkit gen parts --rows 0` writes
    if args.command != "expected" and args.rows < 0:
        ap.error("--rows must be at least 0")
    if args.command == "csv":
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
