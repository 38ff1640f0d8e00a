#!/usr/bin/env python3
"""vocab_scan.py -- no vocabulary literal that lib/vocab.h does not declare.

The store refuses an undeclared event kind, series or meta key at write
time, and the rule library an undeclared class or cause; but rules and
reports also name the vocabulary inside SQL text and C comparisons, where
a typo reads nothing and fails nothing. This script reads the declaration
(the X-macro lists of lib/vocab.h) and scans the C sources of analyzer/,
reports/, parsers/ and cli/ for literals that name the vocabulary:

  - SQL:  kind = 'x', kind IN ('x', 'y'), name = 'x', name LIKE 'x%',
          key = 'x', key LIKE 'x%', class = 'x', cause = 'x', phase = 'x',
          measure = 'x' (and != / <> / NOT IN);
  - a dotted name in one of oomlens's namespaces, in C or SQL quotes:
          "gpu.used_bytes", 'torch.reserved_bytes', "gpu.total_bytes.gpu%d",
          'proc.%' (a pattern: must be the prefix of a declared name);
  - C: the kind given to an event (.kind = "x", the parsers' emit and
          kp_record_event helpers, strcmp(...kind..., "x")), and the class
          and cause of rl_finding_init.

A literal in a kind/name/key comparison that belongs to another column of
the same name (an artifact's format, a mapping's or holder's kind, a
frame's name) is known from OTHER below, each with its reason. Prints one
line per undeclared literal (file:line: what) and a closing count; exits
1 on any.

usage: vocab_scan.py SRCDIR
"""
import os
import re
import sys

NAMESPACES = ("gpu", "torch", "cuda", "proc", "cgroup", "server", "host", "memray",
              "prometheus", "grafana", "kernel", "time", "incident", "k8s", "env")

# Values of columns that share a name with a vocabulary column but are not
# vocabulary: kept here with the column they belong to.
OTHER = {
    # mapping.kind (docs/schema.md "Core"), holder.kind, gpu_region.kind
    "kind": {"heap", "anon", "file", "stack", "gpu", "shmem", "hugepage", "special",
             "no_stack", "not_in_trace", "other", "global", "managed", "local",
             "shared", "param",
             # a memray holder's data.kind: a location or a module
             "location", "module"},
    # values of dotted shape that are not names (a dtype, a version)
    "dotted": {"torch.bfloat16", "torch.float16", "torch.float32",
               # PyTorch's exception classes, a wording memfail_words.c reads
               "torch.OutOfMemoryError", "torch.cuda.OutOfMemoryError"},
}

ROW = re.compile(r'X\((\w+), "([^"]*)", (NULL|"[^"]*"), (NULL|"[^"]*"), "(?:[^"\\]|\\.)*"\)')
MACROS = {"VOCAB_EVENT_KINDS": "event", "VOCAB_SERIES": "series", "VOCAB_META_KEYS": "meta",
          "VOCAB_CAUSES": "cause", "VOCAB_CLASSES": "class", "VOCAB_PHASES": "phase", "VOCAB_STACKS": "stack",
          "VOCAB_MEASURES": "measure", "VOCAB_OOM_KINDS": "oom_kind"}


def declaration(src):
    """{set: (exact names, family prefixes)} from lib/vocab.h."""
    text = open(os.path.join(src, "lib/vocab.h")).read()
    sets = {}
    for macro, name in MACROS.items():
        start = text.index("#define %s(X)" % macro)
        body = text[start:text.index("\n\n", start)]
        exact, fam = set(), set()
        for m in ROW.finditer(body):
            (fam if m.group(3) != "NULL" else exact).add(m.group(2))
        if not exact and not fam:
            sys.exit("vocab_scan: no entries read for %s" % macro)
        sets[name] = (exact, fam)
    return sets


def declared(sets, which, value, pattern=False):
    """value is declared in one of the sets named; a pattern (a LIKE or a
    printf format, cut at its first %) must be a prefix of a declared name
    or extend a family's prefix."""
    for w in which:
        exact, fam = sets[w]
        # a family's prefix alone is declared too: SQL appends the
        # variable part ('gpu.total_bytes.' || account)
        if value in exact or any(value.startswith(f) for f in fam):
            return True
        if pattern and (any(n.startswith(value) for n in exact | fam) or
                        any(value.startswith(f) for f in fam)):
            return True
    return False


def joined(text):
    """C text with adjacent string literals joined ("a" "b" -> "ab"), so
    that SQL split over lines reads as one string; line numbers kept by
    counting the newlines removed."""
    return re.sub(r'"(\s*\n\s*)"', lambda m: "\x00" * m.group(1).count("\n"), text)


SQL_CMP = re.compile(r"\b(\w+\.)?(kind|name|key|class|cause|phase|measure)\s*"
                     r"(=|!=|<>|LIKE|NOT\s+LIKE|GLOB)\s*'([^']*)'", re.I)
SQL_IN = re.compile(r"\b(\w+\.)?(kind|name|key|class|cause|phase|measure)\s+(?:NOT\s+)?IN\s*\(([^()]*)\)", re.I)
DOTTED = re.compile(r"""["']((?:%s)\.[A-Za-z0-9_.%%<>:/-]*)["']""" % "|".join(NAMESPACES))
C_KIND = re.compile(r'(?:\.kind\s*=\s*|kp_record_event\(\s*\w+,\s*\w+,\s*|\bemit\(\s*\w+,\s*'
                    r'|strcmp\([^,()]*kind[^,()]*,\s*)"([a-z0-9_]+)"')
C_FINDING = re.compile(r'rl_finding_init\(\s*[^,]+,\s*"[^"]*",\s*"([^"]*)",\s*(?:"([^"]*)"|[^)]*\?\s*"([^"]*)"\s*:\s*"([^"]*)")')

# C arrays of vocabulary: (array name pattern, set, 1 = only the first
# string of each {row}) -- the reports' lists of event kinds, the
# verdict's classes.
C_ARRAYS = [(r"\w*(?:kill|listed)\w*", "kind", 0), (r"marker_kinds", "kind", 1),
            (r"classes", "class", 0)]
C_ARRAY = re.compile(r"\b(%s)\[[^\]]*\]\s*=\s*\{(.*?)\};" % "|".join(a for a, _, _ in C_ARRAYS), re.S)

# a kind compared in SQL is an event's or a row of the derived table oom's
COLUMN_SETS = {"kind": ["event", "oom_kind"], "name": ["series"], "key": ["meta"], "class": ["class"],
               "cause": ["cause"], "phase": ["phase"], "measure": ["measure"]}


def formats(src):
    """The artifact formats (artifact.kind): the names of the format table."""
    names = set()
    for root, _, files in os.walk(os.path.join(src, "analyzer/ingest")):
        for f in files:
            if f.endswith(".c"):
                names |= set(re.findall(r'\{\s*"([a-z0-9_]+)"\s*,', open(os.path.join(root, f)).read()))
    return names


def scan(src):
    sets = declaration(src)
    other_kinds = OTHER["kind"] | formats(src)
    bad = []

    def check(path, text, pos, column, value, pattern=False):
        line = text.count("\n", 0, pos) + text.count("\x00", 0, pos) + 1
        which = COLUMN_SETS[column]
        if declared(sets, which, value, pattern):
            return
        if column == "kind" and value in other_kinds:
            return
        if column == "name" and not (value.split(".")[0] in NAMESPACES and "." in value):
            return  # another table's name column (a frame's, a task's): not a series
        if column == "key" and "." not in value:
            return  # a JSON key (json_each), not a meta key
        bad.append("%s:%d: %s '%s' is not declared in lib/vocab.h" % (path, line, column, value))

    for top in ("analyzer", "reports", "parsers", "cli"):
        for root, _, files in os.walk(os.path.join(src, top)):
            for f in sorted(files):
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, src)
                text = joined(open(path, encoding="utf-8", errors="replace").read())
                for m in SQL_CMP.finditer(text):
                    op = m.group(3).upper()
                    pat = "LIKE" in op or "GLOB" in op
                    value = re.split(r"[%*?[]" if "GLOB" in op else "%", m.group(4))[0] if pat else m.group(4)
                    if value:
                        check(rel, text, m.start(), m.group(2).lower(), value, pat)
                for m in SQL_IN.finditer(text):
                    for v in re.finditer(r"'([^']*)'", m.group(3)):
                        check(rel, text, m.start(), m.group(2).lower(), v.group(1))
                for m in DOTTED.finditer(text):
                    v = m.group(1)
                    if v in OTHER["dotted"]:
                        continue
                    pat = "%" in v or v.endswith(".")
                    value = v.split("%")[0]
                    line = text.count("\n", 0, m.start()) + text.count("\x00", 0, m.start()) + 1
                    if not declared(sets, ["series", "meta"], value, pat):
                        bad.append("%s:%d: name '%s' is not declared in lib/vocab.h" % (rel, line, v))
                for m in C_KIND.finditer(text):
                    check(rel, text, m.start(), "kind", m.group(1))
                for m in C_ARRAY.finditer(text):
                    for a, column, first in C_ARRAYS:
                        if re.fullmatch(a, m.group(1)):
                            break
                    items = (re.findall(r'\{\s*"([^"]*)"', m.group(2)) if first
                             else re.findall(r'"([^"]*)"', m.group(2)))
                    for v in items:
                        check(rel, text, m.start(), column, v)
                for m in C_FINDING.finditer(text):
                    check(rel, text, m.start(), "class", m.group(1))
                    for c in m.group(2, 3, 4):
                        if c:
                            check(rel, text, m.start(), "cause", c)
    return bad


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    bad = scan(sys.argv[1])
    for b in bad:
        print(b)
    print("%d undeclared vocabulary literals" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
