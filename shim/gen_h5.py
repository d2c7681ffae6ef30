"""gen_h5.py - the HDF5 part of shim/gen-calls.py.

Knows the argument kinds of shim/h5.tab and writes:
  shim/h5-wrappers.gen.c    one wrapper per hdf5 row
  libcommon/h5names.gen.c   the names of HDF5's predefined identifiers
                            (H5T_NATIVE_INT ...) and of the enumerations
                            the table uses, read from the HDF5 headers

The predefined identifiers are numbered in the order of the previous
h5names.gen.c, new ones appended, because the numbers are written in
traces.  Everything else follows the headers and the table, so running it
twice gives the same files.
"""
import os
import re

H5_INCLUDE = os.environ.get('TG_H5_INCLUDE', '/usr/include/hdf5/mpich')

# kind -> named-constant table: (TG_E_* of libcommon/calltab.h, where the
# names come from: an enum typedef of the headers, or 'H5F_ACC' for the
# flags of H5Fcreate and H5Fopen).  Append only.
ENUMS = [
    ('facc', 'TG_E_H5F_ACC', 'H5F_ACC'),
    ('scope', 'TG_E_H5F_SCOPE', 'H5F_scope_t'),
    ('fclose', 'TG_E_H5F_CLOSE', 'H5F_close_degree_t'),
    ('libver', 'TG_E_H5F_LIBVER', 'H5F_libver_t'),
    ('fspace', 'TG_E_H5F_FSPACE', 'H5F_fspace_strategy_t'),
    ('sclass', 'TG_E_H5S_CLASS', 'H5S_class_t'),
    ('selop', 'TG_E_H5S_SELOP', 'H5S_seloper_t'),
    ('seltype', 'TG_E_H5S_SELTYPE', 'H5S_sel_type'),
    ('tclass', 'TG_E_H5T_CLASS', 'H5T_class_t'),
    ('torder', 'TG_E_H5T_ORDER', 'H5T_order_t'),
    ('tsign', 'TG_E_H5T_SIGN', 'H5T_sign_t'),
    ('tstr', 'TG_E_H5T_STR', 'H5T_str_t'),
    ('cset', 'TG_E_H5T_CSET', 'H5T_cset_t'),
    ('tpad', 'TG_E_H5T_PAD', 'H5T_pad_t'),
    ('tnorm', 'TG_E_H5T_NORM', 'H5T_norm_t'),
    ('tdir', 'TG_E_H5T_DIR', 'H5T_direction_t'),
    ('layout', 'TG_E_H5D_LAYOUT', 'H5D_layout_t'),
    ('alloc', 'TG_E_H5D_ALLOC', 'H5D_alloc_time_t'),
    ('filltime', 'TG_E_H5D_FILLTIME', 'H5D_fill_time_t'),
    ('fillval', 'TG_E_H5D_FILLVAL', 'H5D_fill_value_t'),
    ('spstatus', 'TG_E_H5D_SPACE_STATUS', 'H5D_space_status_t'),
    ('xfer', 'TG_E_H5FD_XFER', 'H5FD_mpio_xfer_t'),
    ('collopt', 'TG_E_H5FD_COLLOPT', 'H5FD_mpio_collective_opt_t'),
    ('chunkopt', 'TG_E_H5FD_CHUNKOPT', 'H5FD_mpio_chunk_opt_t'),
    ('iomode', 'TG_E_H5D_MPIO_IO', 'H5D_mpio_actual_io_mode_t'),
    ('chunkmode', 'TG_E_H5D_MPIO_CHUNK', 'H5D_mpio_actual_chunk_opt_mode_t'),
    ('itype', 'TG_E_H5I_TYPE', 'H5I_type_t'),
    ('index', 'TG_E_H5_INDEX', 'H5_index_t'),
    ('iter', 'TG_E_H5_ITER', 'H5_iter_order_t'),
]

# kind name -> TG_K_*, and the argdesc.sub each kind records
KINDS = {'hid': 'TG_K_HID', 'plist': 'TG_K_HID', 'space': 'TG_K_HID',
         'estack': 'TG_K_HID', 'hidp': 'TG_K_HID',
         'dims': 'TG_K_HSIZEARR', 'sdims': 'TG_K_HSIZEARR',
         'outdims': 'TG_K_HSIZEARR', 'cb': 'TG_K_BUF'}
SUBS = {'plist': 'TG_HZ_PLIST', 'space': 'TG_HZ_SPACE',
        'estack': 'TG_HZ_ESTACK', 'dims': 'TG_DIMS_HSIZE',
        'outdims': 'TG_DIMS_HSIZE', 'sdims': 'TG_DIMS_SIGNED'}
for _k, _e, _src in ENUMS:
    KINDS['e_' + _k] = KINDS['pe_' + _k] = 'TG_K_ENUM'
    SUBS['e_' + _k] = SUBS['pe_' + _k] = _e

HIDS = ('hid', 'plist', 'space', 'estack')


# ---- the wrappers --------------------------------------------------------

def failed_expr(r):
    """The C test for a failed call (row @r's failure field)."""
    return {'neg': 'ret < 0', 'zero': 'ret == 0', 'none': '0',
            '-1': 'ret == (%s)-1' % r.rtype}[r.fail]


def unresolved(r):
    """What a wrapper returns when the real function cannot be found."""
    if r.rtype == 'void':
        return ''
    if r.fail == 'zero':
        return ' 0'
    return ' (%s)-1' % r.rtype


def ret_enc(r):
    """The return value as the record's ret field holds it."""
    if r.rkind == 'hid':
        return '(int64_t)tg_h5_enc(ret)'
    return '(int64_t)ret'


def arr_len(p, when):
    """The C expression for the length of array @p if it is taken @when
    ('pre': before the call, 'post': after), else None."""
    post = re.search(r'\bret\b', p.karg) is not None
    if post != (when == 'post'):
        return None
    return '(%s)' % p.karg


def gen_wrapper(r, lname, out):
    """The wrapper of hdf5 row @r (layer constant @lname)."""
    proto = ', '.join(p.cdecl() for p in r.params) or 'void'
    types = ', '.join(p.ctype for p in r.params) or 'void'
    args = ', '.join(p.name for p in r.params)
    rt = r.rtype
    sep = '' if rt.endswith('*') else ' '
    o = out.write
    paths = [p for p in r.params if p.kind == 'path']
    cbs = [p for p in r.params if p.kind == 'cb']
    # the traced call passes trampolines for callbacks (see shim/h5.c)
    cargs = []
    for p in r.params:
        cb = next((c for c in cbs if c.karg == p.name), None)
        if p.kind == 'cb':
            cargs.append('%s ? tg_h5cb_%s : NULL' % (p.name, p.ctype))
        elif cb:
            cargs.append('%s ? (void *)&cb_%s : %s' % (cb.name, cb.name, p.name))
        else:
            cargs.append(p.name)
    cargs = ', '.join(cargs)
    o('\n%s%s%s(%s);\n' % (rt, sep, r.name, proto))
    if takes_mpi(r):
        # takes MPI handles: sent past the wrapper when the MPI library is
        # not MPICH's (shim/stubs.S)
        o('TG_MPIFN %s%sTG_MPINAME(%s)(%s)\n{\n' % (rt, sep, r.name, proto))
    else:
        o('TG_EXPORT %s%s%s(%s)\n{\n' % (rt, sep, r.name, proto))
    o('\tstatic %s (*real0)(%s);\n' % (rt, types))
    o('\t%s (*real)(%s);\n' % (rt, types))
    o('\tstruct tg_call tgc;\n\tsize_t need = 0;\n\tint failed, e0;\n')
    o('\t%s%sret;\n' % (rt, sep))
    if paths:
        o('\tint ex = 0;\n')
    o('\n\tif (tg_unlikely(!real0) && !(real0 = (%s (*)(%s))tg_real("%s", NULL)))\n'
      '\t\treturn%s;\n' % (rt, types, r.name, unresolved(r)))
    # the library the caller links (two HDF5 libraries in one process)
    o('\treal = (%s (*)(%s))tg_h5_real("%s", __builtin_return_address(0), (void *)real0);\n'
      % (rt, types, r.name))
    o('\tif (!tg_on(%s))\n\t\treturn real(%s);\n' % (lname, args))
    for p in paths:
        o('\tchar pb_%s[TG_PATH_MAX];\n' % p.name)
        o('\tconst char *ap_%s = tg_path_prep(pb_%s, %s, AT_FDCWD, &ex);\n'
          % (p.name, p.name, p.name))
    if paths:
        o('\tif (ex || !tg_enter(&tgc, TG_FN_%s, %s)) {\n' % (r.name, lname))
        o('\t\tif (ex)\n\t\t\ttg_count_excluded();\n')
        o('\t\treturn real(%s);\n\t}\n' % args)
    else:
        o('\tif (!tg_enter(&tgc, TG_FN_%s, %s))\n\t\treturn real(%s);\n'
          % (r.name, lname, args))
    o('\te0 = errno;\n')
    late = []
    for p in r.params:
        v, k = p.name, p.kind
        if k == 'str':
            o('\tuint64_t sid_%s = tg_str(tgc.t, %s);\n' % (v, v))
        elif k == 'path':
            o('\tuint64_t sid_%s = tg_str(tgc.t, ap_%s);\n' % (v, v))
        elif k in HIDS:
            o('\tuint64_t hid_%s = tg_h5_enc(%s);\n' % (v, v))
        elif k == 'cb':
            o('\tstruct tg_h5cb cb_%s = { (void (*)(void))%s, %s, tgc.depth };\n'
              % (v, v, p.karg))
        elif k == 'info':
            o('\tif (tg_unlikely(tg_info_on))\n\t\ttg_info_def(tgc.t, %s);\n' % v)
    # array lengths known before the call, each distinct one worked out
    # once (a rank asks the library), and only if an array needs it
    pre = [p for p in r.params if p.kind in ('dims', 'sdims', 'outdims', 'intarr')
           and arr_len(p, 'pre')]
    exprs = []
    for p in pre:
        if arr_len(p, 'pre') not in exprs:
            exprs.append(arr_len(p, 'pre'))
    for i, e in enumerate(exprs):
        users = ' || '.join(p.name for p in pre if arr_len(p, 'pre') == e)
        o('\tlong len%d = %s ? tg_cap((long)%s) : 0;\n' % (i, users, e))
    for p in pre:
        o('\tlong n_%s = %s ? len%d : 0;\n' % (p.name, p.name, exprs.index(arr_len(p, 'pre'))))
        if p.kind != 'outdims':
            o('\tneed += TG_VARINT_MAX * (size_t)n_%s;\n' % p.name)
    o('\terrno = 0;\n')
    o('\tret = real(%s);\n\ttg_end(&tgc);\n' % cargs)
    o('\tfailed = %s;\n' % failed_expr(r))
    for p in r.params:
        v, k = p.name, p.kind
        if k == 'outdims':
            n = arr_len(p, 'post')
            if n:
                o('\tlong n_%s = %s && !failed ? tg_cap((long)%s) : 0;\n' % (v, v, n))
            else:
                o('\tif (failed)\n\t\tn_%s = 0;\n' % v)
            o('\tneed += TG_VARINT_MAX * (size_t)n_%s;\n' % v)
        elif k == 'outstr':
            cond = '!failed && %s' % v
            if p.karg:
                cond += ' && %s > 0' % p.karg
            o('\tuint64_t sid_%s = %s ? tg_str(tgc.t, %s) : 0;\n' % (v, cond, v))
        elif k in ('commp', 'infop'):
            h = 'TG_H_COMM' if k == 'commp' else 'TG_H_INFO'
            o('\tuint64_t hid_%s = !failed && %s ? tg_h_new(&tgc, %s, TG_HVAL(*%s)) : 0;\n'
              % (v, v, h, v))
        elif k == 'hidp':
            o('\tuint64_t hid_%s = !failed && %s ? tg_h5_enc(*%s) : 0;\n' % (v, v, v))
    o('\ttg_rec_begin_n(&tgc, %s, tg_h5_errno(&tgc, e0) && failed, need);\n' % ret_enc(r))
    for p in r.recorded:
        v, k = p.name, p.kind
        if k in ('int', 'off'):
            o('\ttg_put_s(&tgc, (int64_t)%s);\n' % v)
        elif k.startswith('e_'):
            o('\ttg_put_s(&tgc, (int64_t)%s);\n' % v)
        elif k in ('uint', 'hex'):
            o('\ttg_put_u(&tgc, (uint64_t)%s);\n' % v)
        elif k in ('str', 'path', 'outstr'):
            o('\ttg_put_u(&tgc, sid_%s);\n' % v)
        elif k in HIDS or k in ('hidp', 'commp', 'infop'):
            o('\ttg_put_u(&tgc, hid_%s);\n' % v)
        elif k in ('buf', 'cb'):
            o('\ttg_put_u(&tgc, tg_ptr_id(tgc.t, (const void *)%s));\n' % v)
        elif k == 'stream':
            o('\ttg_put_u(&tgc, tg_fstab_id(%s, NULL));\n' % v)
        elif k == 'outval' or k.startswith('pe_'):
            o('\ttg_put_s(&tgc, !failed && %s ? (int64_t)*%s : 0);\n' % (v, v))
        elif k in ('dims', 'sdims', 'outdims'):
            o('\ttg_h5_put_dims(&tgc, (const hsize_t *)%s, n_%s);\n' % (v, v))
        elif k == 'intarr':
            o('\tTG_PUT_ARR(&tgc, %s, n_%s);\n' % (v, v))
        elif k in ('comm', 'info'):
            h = 'TG_H_COMM' if k == 'comm' else 'TG_H_INFO'
            o('\ttg_put_u(&tgc, tg_h_enc(%s, TG_HVAL(%s)));\n' % (h, v))
        else:
            raise SystemExit('%s: no HDF5 encoding for kind %s' % (r.name, k))
    o('\ttg_rec_commit(&tgc);\n')
    if 'closeid' in r.opts:
        late.append('if (!failed)\n\t\ttg_h5_closed(%s);' % r.opts['closeid'])
    if 'decref' in r.opts:
        late.append('if (ret == 0)\n\t\ttg_h5_closed(%s);' % r.opts['decref'])
    if 'reset' in r.opts:
        late.append('if (!failed)\n\t\ttg_h5_reset();')
    if late:
        o('\tint e = errno;\n')
        for s in late:
            o('\t' + s + '\n')
        o('\terrno = e;\n')
    o('\treturn ret;\n}\n')


def takes_mpi(r):
    return any('MPI_' in p.ctype for p in r.params)


def gen_wrappers(rows, layers, out, mpiout):
    """The HDF5 wrappers into @out; those that take MPI handles into
    @mpiout, which @out includes and shim/mpi-ompi.c compiles once more
    against Open MPI's mpi.h."""
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    out.write('#include "h5-shim.h"\n\n')
    out.write('/* HDF5 declares some pointer parameters as arrays (hsize_t[]) */\n')
    out.write('#pragma GCC diagnostic ignored "-Warray-parameter"\n')
    mpiout.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    mpiout.write('/* The HDF5 wrappers that take MPI handles: included by h5-wrappers.gen.c,\n'
                 ' * and by mpi-ompi.c for an HDF5 of Open MPI. */\n')
    for r in rows:
        if r.layer == 'hdf5' and 'hand' not in r.opts and 'nolib' not in r.opts:
            gen_wrapper(r, layers[r.layer], mpiout if takes_mpi(r) else out)
    out.write('\n#include "h5-mpi-wrappers.gen.c"\n')


# ---- the names -------------------------------------------------------------

def read_header(name):
    text = open(os.path.join(H5_INCLUDE, name)).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return text.replace('\\\n', ' ')


def headers():
    return ''.join(read_header(f) for f in sorted(os.listdir(H5_INCLUDE))
                   if re.match(r'H5[A-Z]*(public|mpi|mpio)\.h$', f))


SENTINEL = re.compile(r'(_N|_NTYPES|_NBOUNDS|NCLASSES|_NPAD|_NSGN|_NCSET|_NLAYOUTS)$|RESERVED')


def parse_enum(text, tname):
    """[(name, value)] of the enum typedef @tname."""
    m = re.search(r'typedef\s+enum\s*\w*\s*\{([^}]*)\}\s*' + tname + r'\s*;', text)
    if not m:
        raise SystemExit('gen_h5: enum %s not found in %s' % (tname, H5_INCLUDE))
    known, out, nxt = {}, [], 0
    for item in m.group(1).split(','):
        item = item.strip()
        if not item:
            continue
        name, _, expr = item.partition('=')
        name = name.strip()
        if expr.strip():
            e = re.sub(r'\b(\d+|0x[0-9a-fA-F]+)[uUlL]+\b', r'\1', expr)
            e = re.sub(r'(?<!\w)[A-Za-z_]\w*', lambda x: str(known[x.group(0)]), e)
            nxt = int(eval(e.strip(), {'__builtins__': {}}))
        known[name] = nxt
        if not SENTINEL.search(name):
            out.append((name, nxt))
        nxt += 1
    return out


def parse_facc(text):
    out = []
    for m in re.finditer(r'#\s*define\s+(H5F_ACC_\w+)\s+\((?:H5CHECK\s+)?(?:H5OPEN\s+)?'
                         r'(0x[0-9a-fA-F]+)u?\)', text):
        if m.group(1) != 'H5F_ACC_DEBUG' and m.group(1) not in [n for n, _ in out]:
            out.append((m.group(1), int(m.group(2), 16)))
    return out


def parse_predef(text, old):
    """The predefined identifiers: [(name, global)], @old's order first."""
    found = []
    for m in re.finditer(r'#\s*define\s+(H5[TP]_\w+)\s+\(H5OPEN\s+(H5[TP]_\w+_g)\)', text):
        if m.group(1) not in [n for n, _ in found]:
            found.append((m.group(1), m.group(2)))
    # a name the headers no longer have keeps its number
    out = list(old)
    for n, g in found:
        if (n, g) not in out:
            out.append((n, g))
    return out


def gen_names(path):
    old = []
    if os.path.exists(path):
        old = re.findall(r'\{ "(H5\w+)", "(\w+)" \}', open(path).read())
    text = headers()
    parts = []
    w = parts.append
    w('/* Generated by shim/gen-calls.py from the HDF5 headers: do not edit. */\n')
    w('#include <stddef.h>\n\n#include "calltab.h"\n#include "h5names.h"\n\n')
    w('/* Predefined identifiers by number (the number is in traces: the order\n'
      ' * only ever grows at the end).  Number 0 is an invalid identifier. */\n')
    w('const struct tg_h5predef tg_h5_predef[] = {\n\t{ NULL, NULL },\n')
    for n, g in parse_predef(text, old):
        w('\t{ "%s", "%s" },\n' % (n, g))
    w('};\n\nconst unsigned tg_h5_npredef = sizeof(tg_h5_predef) / sizeof(tg_h5_predef[0]);\n\n')
    w('/* Named constants, by table (enum tg_enum). */\n')
    w('const struct tg_enumname tg_h5_enums[] = {\n')
    for _, e, src in ENUMS:
        vals = parse_facc(text) if src == 'H5F_ACC' else parse_enum(text, src)
        for n, v in vals:
            w('\t{ %s, %d, "%s" },\n' % (e, v, n))
    w('\t{ 0, 0, NULL },\n};\n')
    with open(path, 'w') as o:
        o.write(''.join(parts))
