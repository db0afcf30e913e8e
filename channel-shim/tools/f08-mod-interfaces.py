#!/usr/bin/env python3
"""Print the dummy arguments of the procedures of MPICH's `mpi_f08` modules.

Usage:
    python3 channel-shim/tools/f08-mod-interfaces.py MOD [NAME ...]

MOD is Debian's gfortran module file (gzipped or not), for instance
/usr/lib/x86_64-linux-gnu/fortran/gfortran-mod-15/mpich/mpi_f08.mod;
NAMEs select procedures (`mpi_comm_set_name_f08`, `mpi_comm_c2f`), all
of mpi_f08, mpi_f08_types and mpi_f08_callbacks by default. One line per
procedure:

    mpi_comm_set_name_f08 sub comm:Mpi_comm[in] comm_name:char[in] ierror:i4[out,optional]

(`i4`/`i8`/`r8`/`l4`: INTEGER, REAL and LOGICAL kinds; a derived type by
name; `char` a CHARACTER(LEN=*) with its hidden length last; `proc:` a
procedure argument and its interface; the flags: intent, OPTIONAL, VALUE,
DIMENSION and the array kind.) The channel shim's `use mpi_f08` wrappers
(channel-shim/fortran/src/f08_*.rs) were checked against these lists.
"""
import re, sys, gzip
path = sys.argv[1]
data = open(path, 'rb').read()
try:
    data = gzip.decompress(data)
except OSError:
    pass
text = data.decode('latin-1').split('\n', 1)[1]
tok = re.compile(r"\(|\)|'(?:[^']|'')*'|[^\s()']+")
def parse(s):
    stack = [[]]
    for m in tok.finditer(s):
        t = m.group(0)
        if t == '(':
            stack.append([])
        elif t == ')':
            x = stack.pop(); stack[-1].append(x)
        else:
            stack[-1].append(t)
    return stack[0]
top = parse(text)
# symbol table: the longest flat list
syms = max(top, key=len)
recs = {}
i = 0
while i + 5 < len(syms):
    sid = syms[i]; name = syms[i+1].strip("'"); mod = syms[i+2].strip("'")
    body = syms[i+5]
    recs[sid] = dict(name=name, mod=mod, attrs=body[0], ts=body[2], tail=body[3:])
    i += 6
def flat(x):
    return ' '.join(flat(y) if isinstance(y, list) else y for y in x)
def desc(r):
    a = r['attrs']; ts = r['ts']; tail = r['tail']
    t = ts[0]
    if t == 'DERIVED':
        t = recs.get(ts[1], {}).get('name', ts[1])
    elif t in ('INTEGER', 'REAL', 'LOGICAL', 'COMPLEX'):
        t = f"{t[0].lower()}{ts[1]}"
    elif t == 'CHARACTER':
        t = 'char'
    elif t == 'TYPE':
        t = 'type(*)'
    elif t == 'UNKNOWN' and 'PROCEDURE' in a:
        iface = ts[2]
        t = 'proc:' + recs.get(iface, {}).get('name', iface)
    else:
        t = t.lower()
    flags = []
    intent = a[1]
    if intent != 'UNKNOWN-INTENT': flags.append(intent.lower())
    for f in ('OPTIONAL', 'VALUE', 'DIMENSION', 'ASYNCHRONOUS', 'POINTER', 'ALLOCATABLE'):
        if f in a: flags.append(f.lower())
    arr = [x for x in tail if isinstance(x, list) and x and isinstance(x[0], str) and x[0].isdigit() and len(x) > 2 and x[2] in ('ASSUMED_SIZE','ASSUMED_SHAPE','EXPLICIT','ASSUMED_RANK','DEFERRED')]
    if arr:
        flags.append(arr[0][2].lower() + ('' if arr[0][0] in ('1','-1') else '/rank' + arr[0][0]))
    return f"{r['name']}:{t}" + (('[' + ','.join(flags) + ']') if flags else '')
want = sys.argv[2:] 
for sid, r in recs.items():
    a = r['attrs']
    if not a or a[0] != 'PROCEDURE' or r['mod'] not in ('mpi_f08','mpi_f08_types','mpi_f08_callbacks') or 'MODULE-PROC' not in a:
        continue
    formal = None
    for x in r['tail']:
        if isinstance(x, list):
            formal = x; break
    if want and r['name'] not in want:
        continue
    args = [desc(recs[f]) for f in formal if f in recs] if formal else []
    kind = 'function->' + desc(r).split(':',1)[1] if 'FUNCTION' in a else 'sub'
    print(r['name'], kind, ' '.join(args))
