#!/usr/bin/env python3
"""gen-calls.py - generate the call table and the shim's wrappers.

Reads libcommon/calls.tab (POSIX, stdio) and any further tables given
(shim/mpi.tab, shim/h5.tab), all in the format described at the top of
calls.tab, and writes:
  libcommon/funcid.gen.h    TG_FN_<name> ids and the id range
  libcommon/calltab.gen.c   the schemas the decoders use
  shim/wrappers.gen.c       one wrapper per row not marked hand or nolib
  shim/mpi-wrappers.gen.c   the same for the MPI rows
  shim/pmpi.gen.c           a PMPI_ entry for each of those (shim/pmpi.c)
  shim/h5-wrappers.gen.c    and for the HDF5 rows (those that take MPI
  shim/h5-mpi-wrappers.gen.c  handles apart, for mpi-ompi.c too), with
  libcommon/h5names.gen.c   HDF5's names (shim/gen_h5.py)

Run from the top of the tree:
  python3 shim/gen-calls.py libcommon/calls.tab shim/mpi.tab shim/h5.tab
"""
import os
import re
import sys

sys.dont_write_bytecode = True    # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_h5  # noqa: E402

LAYERS = {'posix': 'TG_LAYER_POSIX', 'stdio': 'TG_LAYER_STDIO',
          'mpi': 'TG_LAYER_MPI', 'mpiio': 'TG_LAYER_MPIIO',
          'hdf5': 'TG_LAYER_HDF5'}

# kind name -> TG_K_* enum
KINDS = {
    'void': 'TG_K_VOID', 'int': 'TG_K_INT', 'uint': 'TG_K_UINT',
    'hex': 'TG_K_HEX', 'fd': 'TG_K_FD', 'oflags': 'TG_K_OFLAGS',
    'mode': 'TG_K_MODE', 'str': 'TG_K_STR', 'path': 'TG_K_PATH',
    'atpath': 'TG_K_PATH', 'stream': 'TG_K_STREAM', 'buf': 'TG_K_BUF',
    'dir': 'TG_K_DIR', 'whence': 'TG_K_WHENCE', 'stat': 'TG_K_STAT',
    'statx': 'TG_K_STAT', 'iov': 'TG_K_IOV', 'fcntl': 'TG_K_FCNTL',
    'intarr': 'TG_K_INTARR', 'off': 'TG_K_SIGNED_OFF', 'flock': 'TG_K_FLOCK',
    'offp': 'TG_K_SIGNED_OFF', 'sizep': 'TG_K_UINT', 'strp': 'TG_K_BUF',
    # MPI
    'status': 'TG_K_MPISTATUS', 'statusarr': 'TG_K_MPISTATUSES',
    'outval': 'TG_K_INT', 'intptr': 'TG_K_INT', 'outintarr': 'TG_K_INTARR',
    'outstr': 'TG_K_STR', 'rangearr': 'TG_K_INTARR', 'reqarr': 'TG_K_MPIHARR',
    'iostatus': 'TG_K_MPIIOSTATUS',
    # pseudo-arguments: not in the prototype; an int computed by the C
    # expression in parentheses before (pre) or after (post) the real call
    'pre': 'TG_K_INT', 'post': 'TG_K_INT',
    # POSIX pseudo-arguments read before the call, recorded as a
    # descriptor, an offset, a size (an aiocb's fields)
    'prefd': 'TG_K_FD', 'preoff': 'TG_K_SIGNED_OFF', 'preuint': 'TG_K_UINT',
    # and read after the call, recorded as a descriptor, an offset (an
    # amount that follows the handle's offsets, coded as their change)
    'postfd': 'TG_K_FD', 'postoff': 'TG_K_SIGNED_OFF',
}
PSEUDO = ('pre', 'post', 'prefd', 'preoff', 'preuint', 'postfd', 'postoff')

# MPI handle kinds: NAME (in), NAMEp (new object out), NAMEio (inout: the
# handle may be freed), NAMEptr (read through a pointer), harr_NAME(n) and
# hout_NAME(n) (arrays in and out).
HANDLES = {'comm': 'TG_H_COMM', 'group': 'TG_H_GROUP', 'dtype': 'TG_H_DTYPE',
           'req': 'TG_H_REQ', 'op': 'TG_H_OP', 'info': 'TG_H_INFO',
           'file': 'TG_H_FILE', 'win': 'TG_H_WIN', 'errh': 'TG_H_ERRH',
           'msg': 'TG_H_MSG', 'session': 'TG_H_SESSION'}
for _h in HANDLES:
    for _suf in ('', 'p', 'io', 'ptr'):
        KINDS[_h + _suf] = 'TG_K_MPIH'
    KINDS['harr_' + _h] = 'TG_K_MPIHARR'
    KINDS['hout_' + _h] = 'TG_K_MPIHARR'
KINDS.update(gen_h5.KINDS)   # HDF5: identifiers, dimensions, enumerations


def handle_of(kind):
    """The TG_H_* of an MPI handle kind, the argdesc.sub of an HDF5 kind,
    or 'TG_H_NONE'."""
    if kind in gen_h5.SUBS:
        return gen_h5.SUBS[kind]
    if kind == 'reqarr':
        return 'TG_H_REQ'
    k = kind
    for pre in ('harr_', 'hout_'):
        if k.startswith(pre):
            return HANDLES[k[len(pre):]]
    for suf in ('ptr', 'io', 'p', ''):
        if suf and k.endswith(suf) and k[:-len(suf)] in HANDLES:
            return HANDLES[k[:-len(suf)]]
    return HANDLES.get(k, 'TG_H_NONE')


ASM_RENAMED = {'vfscanf', 'fscanf', 'vscanf', 'scanf'}


def split_top(text, sep):
    """Split @text at @sep outside parentheses."""
    out, depth, cur = [], 0, ''
    for ch in text:
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ''
            continue
        depth += (ch == '(') - (ch == ')')
        cur += ch
    out.append(cur)
    return out


class Param:
    def __init__(self, text):
        decl, _, rest = text.partition(':')
        bits = [b.strip() for b in split_top(rest, ':')]
        # appended: added to the schema after streams were written without
        # it (a record that ends before it has it absent, see rec.c);
        # appendedN: since .cfg version N (plain "appended": 5), so that a
        # .cfg written before has it absent too (cfgsig.c)
        self.appended = 0
        for b in bits[1:]:
            m = re.match(r'^appended(\d*)$', b)
            if m:
                self.appended = int(m.group(1) or 5)
        bits = [b for i, b in enumerate(bits) if i == 0 or not re.match(r'^appended\d*$', b)]
        self.kindspec = bits[0].strip()
        self.dir = bits[1].strip() if len(bits) > 1 else 'in'
        self.root = len(bits) > 2 and bits[2].strip() == 'root'
        decl = decl.strip()
        m = re.match(r'^(.*?)([A-Za-z_][A-Za-z0-9_]*)$', decl)
        if not m:
            raise SystemExit('bad parameter: %r' % text)
        self.ctype = m.group(1).strip()
        self.name = m.group(2)
        m = re.match(r'^(\w+)(?:\((.*)\))?$', self.kindspec)
        if self.kindspec == '-':
            self.kind, self.karg = '-', None
        elif not m or m.group(1) not in KINDS:
            raise SystemExit('unknown kind %r' % self.kindspec)
        else:
            self.kind, self.karg = m.group(1), m.group(2)

    def cdecl(self):
        if '(*)' in self.ctype:
            return self.ctype.replace('(*)', '(*%s)' % self.name)
        sep = '' if self.ctype.endswith('*') else ' '
        return self.ctype + sep + self.name


class Row:
    def __init__(self, line, lineno, fname):
        parts = [p.strip() for p in line.split('|')]
        if len(parts) != 4:
            raise SystemExit('%s:%d: want 4 fields' % (fname, lineno))
        head, ret, params, opts = parts
        self.rawopts = opts
        idf, layer, name = head.split()
        self.id = None if idf == '-' else int(idf)
        self.layer, self.name = layer, name
        if layer not in LAYERS:
            raise SystemExit('%s:%d: bad layer' % (fname, lineno))
        rparts = ret.rsplit(':', 2)
        self.rtype, self.rkind, self.fail = rparts
        self.mpi = layer in ('mpi', 'mpiio')
        allp = [Param(p) for p in split_top(params, ',')] if params else []
        self.params = [p for p in allp if p.kind not in PSEUDO]
        self.opts = {}
        self.io, self.hb = [], None
        self.recorded = [p for p in allp if p.kind != '-']
        where = '%s:%d: %s' % (fname, lineno, name)
        for o in opts.split():
            m = re.match(r'^(\w+)\((.*)\)$', o)
            if m and m.group(1) == 'hb':
                self.hb = hb_role(self, split_top(m.group(2), ','), where)
            elif m:
                self.io.append(io_role(self, m.group(1), split_top(m.group(2), ','),
                                       where))
            else:
                k, _, v = o.partition('=')
                self.opts[k] = v

    def argidx(self, name, where):
        """The index of recorded argument @name, TG_ARG_RET for 'ret',
        TG_ARG_NONE for '-'."""
        if name == 'ret':
            return 'TG_ARG_RET'
        if name in ('-', ''):
            return 'TG_ARG_NONE'
        for i, p in enumerate(self.recorded):
            if p.name == name:
                return str(i)
        raise SystemExit('%s: role names %r, not a recorded argument' % (where, name))


# ---- roles (see the top of calls.tab) ----------------------------------

IO_OPS = {'read': 'TG_IO_READ', 'write': 'TG_IO_WRITE', 'open': 'TG_IO_OPEN',
          'reopen': 'TG_IO_REOPEN', 'fdopen': 'TG_IO_FDOPEN',
          'close': 'TG_IO_CLOSE', 'dup': 'TG_IO_DUP', 'fcntl': 'TG_IO_FCNTL',
          'seek': 'TG_IO_SEEK', 'rewind': 'TG_IO_REWIND', 'sync': 'TG_IO_SYNC',
          'truncate': 'TG_IO_TRUNCATE', 'view': 'TG_IO_VIEW',
          'fork': 'TG_IO_FORK', 'unplaced': 'TG_IO_UNPLACED', 'lock': 'TG_IO_LOCK',
          'atomic': 'TG_IO_ATOMIC',
          'aiodone': 'TG_IO_AIODONE', 'exec': 'TG_IO_EXEC', 'size': 'TG_IO_SIZE',
          'buffer': 'TG_IO_BUFFER', 'look': 'TG_IO_LOOK', 'load': 'TG_IO_LOAD',
          'mkdir': 'TG_IO_MKDIR', 'spawn': 'TG_IO_SPAWN', 'reap': 'TG_IO_REAP',
          'make': 'TG_IO_MAKE'}
# op -> the names of the fields its arguments go to, in order
IO_ARGS = {'open': 'a b h', 'reopen': 'a b c', 'fdopen': 'a', 'close': 'h',
           'dup': 'a h', 'fcntl': 'h a b', 'rewind': 'h', 'sync': 'h',
           'truncate': 'h a', 'view': 'h a b c', 'fork': '', 'unplaced': '',
           'atomic': 'h a',
           'aiodone': 'a h b', 'exec': '', 'size': 'h a b c', 'buffer': 'h a',
           'look': 'h remove', 'load': 'h a', 'mkdir': 'h', 'spawn': 'a', 'reap': 'a', 'make': 'h'}
MK = ['other', 'send', 'isend', 'send_init', 'recv', 'irecv', 'recv_init',
      'sendrecv', 'isendrecv', 'mprobe', 'improbe', 'start', 'startall', 'wait',
      'waitall', 'waitany', 'waitsome', 'test', 'testall', 'testany', 'testsome',
      'getstatus', 'reqfree', 'coll', 'icoll', 'coll_init', 'create', 'icreate',
      'newcreate', 'fopen', 'fclose', 'fcoll', 'ficoll', 'fbegin', 'fend',
      'inert', 'inert_init', 'finalize', 'wopen', 'wfence', 'wepoch', 'rma',
      'pready', 'parrived', 'group', 'wpost', 'wwait', 'wflush']
ORDERS = ['none', 'all', 'sync', 'root', 'toroot', 'scan', 'exscan']


def io_role(row, op, args, where):
    """One I/O role, as the C initializer of a struct tg_iorole."""
    if op not in IO_OPS:
        raise SystemExit('%s: unknown role %r' % (where, op))
    f = {'op': IO_OPS[op], 'off': 'TG_OFF_NONE', 'len': 'TG_LEN_NONE',
         'h': 'TG_ARG_RET', 'a': 'TG_ARG_NONE', 'b': 'TG_ARG_NONE',
         'c': 'TG_ARG_NONE', 'offarg': 'TG_ARG_NONE', 'lenarg': 'TG_ARG_NONE',
         'flags': '0'}
    args = [a.strip() for a in args if a.strip()]
    if op in ('read', 'write'):
        if len(args) != 3:
            raise SystemExit('%s: %s(handle,offset,length)' % (where, op))
        f['h'] = row.argidx(args[0], where)
        m = re.match(r'^(at|ind|shared|ordered)\(([\w-]+)\)$', args[1])
        if args[1] == 'pos':
            f['off'] = 'TG_OFF_POS'
        elif m:
            f['off'] = 'TG_OFF_' + m.group(1).upper()
            f['offarg'] = row.argidx(m.group(2), where)
        else:
            f['off'] = 'TG_OFF_ARG'
            f['offarg'] = row.argidx(args[1], where)
        m = re.match(r'^status\(([\w-]+),(\w+),(\w+)\)$', args[2])
        aio = re.match(r'^aio\((\w+),(\w+)\)$', args[2])
        if aio:
            f['len'] = 'TG_LEN_AIO'
            f['a'] = row.argidx(aio.group(1), where)
            f['lenarg'] = row.argidx(aio.group(2), where)
        elif args[2] == 'ret':
            f['len'] = 'TG_LEN_RET'
        elif re.match(r'^ret\((\w+)\)$', args[2]):
            # ret(A): the return value, of the A bytes asked for
            f['len'] = 'TG_LEN_RET'
            f['lenarg'] = row.argidx(args[2][4:-1], where)
        elif args[2] == 'line':
            # a line: ret bytes; at the end of the file (-1), the byte
            # it asked for at least was not there (getline)
            f['len'] = 'TG_LEN_RET'
            f['flags'] = 'TG_IOF_LINE'
        elif args[2] == 'one':
            f['len'] = 'TG_LEN_ONE'
        elif re.match(r'^ret\*(\w+)(\((\w+)\))?$', args[2]):
            # ret*A(B): ret items of A bytes, of the B items asked for
            rt = re.match(r'^ret\*(\w+)(\((\w+)\))?$', args[2])
            f['len'] = 'TG_LEN_RET_TIMES'
            f['lenarg'] = row.argidx(rt.group(1), where)
            if rt.group(3):
                f['a'] = row.argidx(rt.group(3), where)
        elif re.match(r'^arg\((\w+)(,(\w+))?\)$', args[2]):
            # arg(A,B): A bytes; none (the end of the file) of B - 1
            # asked for (fgets)
            ar = re.match(r'^arg\((\w+)(,(\w+))?\)$', args[2])
            f['len'] = 'TG_LEN_ARG'
            f['lenarg'] = row.argidx(ar.group(1), where)
            if ar.group(3):
                f['a'] = row.argidx(ar.group(3), where)
        elif m:
            f['len'] = 'TG_LEN_STATUS'
            f['a'] = row.argidx(m.group(1), where)
            f['lenarg'] = row.argidx(m.group(2), where)
            f['c'] = row.argidx(m.group(3), where)
        else:
            raise SystemExit('%s: bad length %r' % (where, args[2]))
    elif op == 'lock':
        if len(args) != 3:
            raise SystemExit('%s: lock(handle,command,range)' % where)
        f['h'] = row.argidx(args[0], where)
        f['a'] = row.argidx(args[1], where)
        m = re.match(r'^(flock|pos)\(([\w-]+)\)$', args[2])
        if args[2] == 'whole':
            f['off'] = 'TG_OFF_NONE'
        elif m and m.group(1) == 'flock':
            f['off'] = 'TG_OFF_ARG'
            f['offarg'] = row.argidx(m.group(2), where)
        elif m:
            f['off'] = 'TG_OFF_POS'
            f['lenarg'] = row.argidx(m.group(2), where)
        else:
            raise SystemExit('%s: bad lock range %r' % (where, args[2]))
    elif op == 'seek':
        # seek(h,ret), seek(h,at): the position is that value;
        # seek(h,offset,whence[,at]): moved so, or to at where recorded
        if len(args) not in (2, 3, 4):
            raise SystemExit('%s: seek(handle,ret|at) or seek(handle,offset,whence[,at])'
                             % where)
        f['h'] = row.argidx(args[0], where)
        if args[1] == 'ret':
            f['off'] = 'TG_OFF_RET'
        else:
            f['off'] = 'TG_OFF_ARG'
            f['offarg'] = row.argidx(args[1], where)
        if len(args) >= 3:
            f['b'] = row.argidx(args[2], where)
        if len(args) == 4:
            f['c'] = row.argidx(args[3], where)
    else:
        names = IO_ARGS[op].split()
        if op == 'open' and len(args) == 2:
            names = names[:2]
        if op == 'sync' and not args:
            names = []          # sync(): every file of the process
            f['h'] = 'TG_ARG_NONE'
        if op in ('spawn', 'reap'):
            f['h'] = 'TG_ARG_NONE'      # a process, not a file's handle
        if op == 'aiodone' and len(args) == 1:
            names = names[:1]           # aiodone(cb): by the aiocb alone
        if op == 'look' and len(args) == 1:
            names = names[:1]           # look(path), or look(path,remove)
        if op == 'size' and len(args) in (2, 4):
            names = names[:len(args)]   # size(h,a) or size(h,a,minus,whence)
        if len(args) != len(names):
            raise SystemExit('%s: %s takes %d arguments' % (where, op, len(names)))
        for n, a in zip(names, args):
            if op == 'open' and n == 'b' and a == 'creat':
                f['flags'] = 'TG_IOF_TRUNC'
                continue
            if op == 'look' and n == 'remove':
                f['flags'] = 'TG_IOF_REMOVE'
                continue
            f[n] = row.argidx(a, where)
    return '{ %s, %s, %s, %s, %s, %s, %s, %s, %s, %s }' % tuple(
        f[k] for k in ('op', 'off', 'len', 'h', 'a', 'b', 'c', 'offarg', 'lenarg', 'flags'))


def hb_role(row, args, where):
    """The happens-before role, as the initializer of a struct tg_hbrole."""
    if not args or args[0] not in MK:
        raise SystemExit('%s: hb(kind,...) with a kind of %s' % (where, ', '.join(MK)))
    kind, order, flags = 'TG_MK_' + args[0].upper(), 'TG_ORD_NONE', []
    comm = root = 'TG_ARG_NONE'
    for a in args[1:]:
        k, _, v = a.partition('=')
        if k == 'comm':
            comm = row.argidx(v, where)
        elif k == 'root':
            root = row.argidx(v, where)
        elif k == 'order' and v in ORDERS:
            order = 'TG_ORD_' + v.upper()
        elif k in ('sync', 'ready', 'put', 'get', 'open') and not v:
            flags.append('TG_MF_' + k.upper())
        else:
            raise SystemExit('%s: bad hb() field %r' % (where, a))
    return '{ %s, %s, %s, %s, %s }' % (kind, order, ' | '.join(flags) or '0', comm, root)


def load(files):
    rows = []
    for f in files:
        for n, line in enumerate(open(f), 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            rows.append(Row(line, n, f))
    return rows


def gen_header(rows, out):
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    out.write('#ifndef TG_FUNCID_GEN_H\n#define TG_FUNCID_GEN_H\n\n')
    for r in rows:
        if r.id is not None:
            out.write('#define TG_FN_%s %d\n' % (r.name, r.id))
    out.write('\n#define TG_FN_IDMAX %d\n' % (max(r.id for r in rows if r.id) + 1))
    out.write('\n#endif\n')


def gen_table(rows, out):
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    out.write('#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n\n#include "calltab.h"\n'
              '#include "funcid.gen.h"\n#include "tg.h"\n\n')
    real = sorted([r for r in rows if r.id is not None], key=lambda r: r.id)
    for r in real:
        if r.recorded:
            out.write('static const struct tg_argdesc a_%s[] = {\n' % r.name)
            for p in r.recorded:
                d = {'in': 'TG_IN', 'out': 'TG_OUT', 'inout': 'TG_INOUT'}[p.dir]
                out.write('\t{ "%s", %s, %s, %s, %d, %d },\n' % (
                    p.name, KINDS[p.kind], d, handle_of(p.kind), p.appended,
                    p.kind in PSEUDO))
            out.write('};\n')
        if r.io:
            out.write('static const struct tg_iorole r_%s[] = {\n' % r.name)
            for x in r.io:
                out.write('\t%s,\n' % x)
            out.write('};\n')
        if r.hb:
            out.write('static const struct tg_hbrole h_%s = %s;\n' % (r.name, r.hb))
    out.write('\nstatic const struct tg_calldesc calls[] = {\n')
    for r in real:
        out.write('\t{ %d, %s, %s, %d, %s, %d, "%s", %s, %s, %s },\n' % (
            r.id, LAYERS[r.layer], KINDS[r.rkind], len(r.recorded),
            handle_of(r.rkind), len(r.io), r.name,
            'a_' + r.name if r.recorded else 'NULL',
            'r_' + r.name if r.io else 'NULL',
            '&h_' + r.name if r.hb else 'NULL'))
    out.write('};\n\n')
    out.write('''static const struct tg_calldesc *byid[TG_FN_IDMAX];
static int ready;

static void index_calls(void)
{
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		byid[calls[i].id] = &calls[i];
	ready = 1;
}

const struct tg_calldesc *tg_call_lookup(unsigned id)
{
	if (!ready)
		index_calls();
	return id < TG_FN_IDMAX ? byid[id] : NULL;
}

/* Names to calls: open addressing over a power-of-two table, built once. */
#define NAMECAP 8192
static const struct tg_calldesc *byname[NAMECAP];
static int named;

static size_t name_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29)) & (NAMECAP - 1);
}

static void index_names(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		j = name_hash(calls[i].name, strlen(calls[i].name));
		while (byname[j])
			j = (j + 1) & (NAMECAP - 1);
		byname[j] = &calls[i];
	}
	named = 1;
}

const struct tg_calldesc *tg_call_byname_n(const char *name, size_t n)
{
	size_t j;

	if (!named)
		index_names();
	for (j = name_hash(name, n); byname[j]; j = (j + 1) & (NAMECAP - 1))
		if (strncmp(byname[j]->name, name, n) == 0 && byname[j]->name[n] == 0)
			return byname[j];
	return NULL;
}

const struct tg_calldesc *tg_call_byname(const char *name)
{
	return tg_call_byname_n(name, strlen(name));
}

int tg_call_argno(const struct tg_calldesc *d, const char *name)
{
	int i;

	for (i = 0; i < d->nargs; i++)
		if (strcmp(d->args[i].name, name) == 0)
			return i;
	return -1;
}

unsigned tg_call_count(void)
{
	return (unsigned)(sizeof(calls) / sizeof(calls[0]));
}

unsigned tg_call_idmax(void)
{
	return TG_FN_IDMAX;
}

const struct tg_calldesc *tg_call_nth(unsigned n)
{
	return n < tg_call_count() ? &calls[n] : NULL;
}
''')


def fail_expr(r):
    f = r.fail
    return {'-1': 'ret == -1', 'NULL': 'ret == NULL', 'EOF': 'ret == EOF',
            'neg': 'ret < 0', 'errret': 'ret != 0', 'none': '0',
            'MAP_FAILED': 'ret == MAP_FAILED'}[f]


def ret_enc(r):
    k = r.rkind
    if k == 'void':
        return '0'
    if k == 'stream':
        return '(int64_t)tg_fstab_id(ret, NULL)'
    if k == 'dir':
        return '(int64_t)tg_dir_id(ret)'
    if k == 'buf':
        if r.fail == 'MAP_FAILED':
            return '(int64_t)(ret == MAP_FAILED ? 0 : tg_ptr_id(tgc.t, ret))'
        return '(int64_t)tg_ptr_id(tgc.t, ret)'
    return '(int64_t)ret'


def put_arg(p, byname):
    v, k = p.name, p.kind
    if k in ('int', 'fd', 'whence', 'fcntl', 'off'):
        return 'tg_put_s(&tgc, (int64_t)%s);' % v
    if k in ('hex', 'oflags', 'mode', 'uint'):
        if p.ctype in ('int', 'long'):
            return 'tg_put_u(&tgc, (uint64_t)(unsigned %s)%s);' % (p.ctype, v)
        return 'tg_put_u(&tgc, (uint64_t)%s);' % v
    if k in ('str', 'path', 'atpath'):
        return 'tg_put_u(&tgc, sid_%s);' % v
    if k == 'stream':
        return 'tg_put_u(&tgc, tg_fstab_id(%s, NULL));' % v
    if k == 'buf':
        return 'tg_put_u(&tgc, tg_ptr_id(tgc.t, %s));' % v
    if k == 'dir':
        return 'tg_put_u(&tgc, tg_dir_id(%s));' % v
    if k == 'stat':
        fn = 'tg_put_stat64' if 'stat64' in p.ctype else 'tg_put_stat'
        return '%s(&tgc, failed ? NULL : %s);' % (fn, v)
    if k == 'statx':
        return 'tg_put_statx(&tgc, failed ? NULL : %s);' % v
    if k == 'iov':
        return 'tg_put_iov(&tgc, %s, %s);' % (v, p.karg)
    if k == 'intarr':
        return 'tg_put_intarr(&tgc, failed ? NULL : %s, %s);' % (v, p.karg)
    if k == 'offp':
        return 'tg_put_s(&tgc, pre_%s);' % v
    if k in ('prefd', 'preoff'):
        return 'tg_put_s(&tgc, px_%s);' % v
    if k == 'preuint':
        return 'tg_put_u(&tgc, (uint64_t)px_%s);' % v
    if k in ('post', 'postfd', 'postoff'):
        return 'tg_put_s(&tgc, px_%s);' % v
    if k == 'sizep':
        return 'tg_put_u(&tgc, %s ? (uint64_t)*%s : 0);' % (v, v)
    if k == 'strp':
        return 'tg_put_u(&tgc, tg_ptr_id(tgc.t, %s ? *%s : NULL));' % (v, v)
    raise SystemExit('no encoding for kind ' + k)


def gen_wrapper(r, rec, out):
    """Write the wrapper of row @r, recorded under row @rec's id."""
    proto = ', '.join(p.cdecl() for p in r.params) or 'void'
    types = ', '.join(p.ctype for p in r.params) or 'void'
    args = ', '.join(p.name for p in r.params)
    rt = r.rtype
    sep = '' if rt.endswith('*') else ' '
    isvoid = rt == 'void'
    ver = '"%s"' % r.opts['ver'] if 'ver' in r.opts else 'NULL'
    layer = LAYERS[r.layer]
    hooked = 'hooked' in r.opts
    call = ('TG_HOOKCALL(real, %s)' if hooked else 'real(%s)') % args
    o = out.write
    cname = r.name
    if hooked:
        o('\n%s%s%s(%s);\n' % (rt, sep, cname, proto))
        o('void *tg_hook_to_%s TG_HIDDEN;\n' % r.name)
        cname = 'TG_HOOKNAME(%s)' % r.name
    elif r.name in ASM_RENAMED:
        # stdio.h redirects these to their __isoc99_ names in C99 mode
        cname = 'tg_w_' + r.name
        o('\n%s%s%s(%s) __asm__("%s");\n' % (rt, sep, cname, proto, r.name))
    else:
        o('\n%s%s%s(%s);\n' % (rt, sep, cname, proto))
    o('%s %s%s%s(%s)\n{\n' % ('TG_HOOKFN' if hooked else 'TG_EXPORT', rt, sep, cname, proto))
    lib = 'libc_' if hooked else 'real'
    o('\tstatic %s (*%s)(%s);\n' % (rt, lib, types))
    o('\tstruct tg_call tgc;\n\tint ex = 0;\n')
    if not isvoid:
        o('\t%s%sret;\n' % (rt, sep))
    o('\n\tif (tg_unlikely(!%s)) {\n' % lib)
    o('\t\t%s = (%s (*)(%s))tg_real("%s", %s);\n' % (lib, rt, types, r.name, ver))
    o('\t\tif (!%s) {\n\t\t\terrno = ENOSYS;\n' % lib)
    if isvoid:
        o('\t\t\treturn;\n')
    elif r.rtype.endswith('*'):
        o('\t\t\treturn %s;\n' % ('MAP_FAILED' if r.fail == 'MAP_FAILED' else 'NULL'))
    else:
        o('\t\t\treturn (%s)-1;\n' % rt)
    o('\t\t}\n\t}\n')
    if hooked:
        # where a library that patched the entry sends the call (shim/hooks.c)
        o('\t%s (*real)(%s) = libc_;\n' % (rt, types))
        o('\tvoid *to_ = tg_hook_depth ? NULL : __atomic_load_n(&tg_hook_to_%s, __ATOMIC_ACQUIRE);\n'
          '\tif (to_)\n\t\treal = (%s (*)(%s))to_;\n' % (r.name, rt, types))
    if 'notmine' in r.opts:
        # the shim's own descriptor does not exist for the program
        o('\tif (tg_unlikely(tg_fd_mine(%s))) {\n\t\terrno = EBADF;\n'
          '\t\treturn (%s)-1;\n\t}\n' % (r.opts['notmine'], rt))
    if 'yieldfd' in r.opts:
        o('\ttg_fd_yield(%s);\n' % r.opts['yieldfd'])
    o('\tif (!tg_on(%s))\n\t\treturn %s;\n' % (layer, call))
    atbase = {p.karg for p in r.params if p.kind == 'atpath'}
    # a path the call removes or renames: its directory by the kernel's
    # name, as an open's file is (tg_path_dir)
    dirnamed = r.opts.get('dirnamed', '').split(',') if 'dirnamed' in r.opts else []
    for p in r.params:
        if p.kind in ('path', 'atpath'):
            base = p.karg if p.kind == 'atpath' else 'AT_FDCWD'
            o('\tchar pb_%s[TG_PATH_MAX];\n' % p.name)
            # a descriptor reopened by name (/dev/stdout, /proc/self/fd/N):
            # its file, traced (tg_path_open_prep)
            if ('newfd' in r.opts or 'newstream' in r.opts) and p.dir == 'in' and \
                    re.search(r'\b(?:re)?open\(%s,' % p.name, r.rawopts):
                o('\tchar fb_%s[TG_PATH_MAX];\n' % p.name)
                o('\tconst char *ap_%s = tg_path_open_prep(pb_%s, fb_%s, %s, %s, &ex);\n' % (
                    p.name, p.name, p.name, p.name, base))
            else:
                o('\tconst char *ap_%s = tg_path_prep(pb_%s, %s, %s, &ex);\n' % (
                    p.name, p.name, p.name, base))
            if p.name in dirnamed:
                o('\tchar db_%s[TG_PATH_MAX];\n' % p.name)
                o('\tif (!ex)\n\t\tap_%s = tg_path_dir(db_%s, ap_%s, %s, %s);\n' % (
                    p.name, p.name, p.name, p.name, base))
        elif p.kind == 'fd' and p.name not in atbase and p.name != 'newfd' \
                and p.dir == 'in':
            o('\tex |= tg_fd_excluded(%s);\n' % p.name)
        elif p.kind == 'stream' and p.dir == 'in':
            o('\tex |= tg_fstab_excluded(%s);\n' % p.name)
        elif p.kind == 'offp':
            o('\tint64_t pre_%s = %s ? (int64_t)*%s : -1;\n' % (p.name, p.name, p.name))
    for p in r.recorded:
        if p.kind in ('prefd', 'preoff', 'preuint'):
            o('\tint64_t px_%s = (int64_t)(%s);\n' % (p.name, p.karg))
        if p.kind == 'prefd':
            o('\tex |= px_%s >= 0 && tg_fd_excluded((int)px_%s);\n' % (p.name, p.name))
    # closes=ARG: the call first closes ARG's handle (dup2's newfd,
    # freopen's stream): recorded when that handle is traced, even if the
    # handle it makes is excluded (a dup2 of /dev/null onto a file's
    # descriptor, a freopen of stdout onto /dev/null), or its close is
    # lost; the new handle stays excluded (exn)
    exn = 'ex'
    if 'closes' in r.opts:
        ca = r.opts['closes']
        cp = next(p for p in r.params if p.name == ca)
        exn = 'exn'
        o('\tint exn = ex;\n\t(void)exn;\n')
        if cp.kind == 'stream':
            o('\tif (ex && %s && !tg_fstab_excluded(%s))\n\t\tex = 0;\n' % (ca, ca))
        else:
            o('\tif (ex && %s != %s && !tg_fd_excluded(%s) && tg_fd_is_open(%s))\n'
              '\t\tex = 0;\n' % (ca, r.opts['dupfd'], ca, ca))
    post = []
    if 'newfd' in r.opts:
        post.append('if (ret >= 0)\n\t\ttg_fd_set(ret, %s);' % exn)
    if 'closefd' in r.opts:
        post.append('tg_fd_set(%s, 0);' % r.opts['closefd'])
    if 'dupfd' in r.opts:
        post.append('if (ret >= 0)\n\t\ttg_fd_dup(%s, ret);' % r.opts['dupfd'])
    if 'dirchange' in r.opts:
        post.append('if (!(%s))\n\t\ttg_path_dir_forget();' % fail_expr(r))
    if 'chdir' in r.opts:
        post.append('if (ret == 0)\n\t\ttg_cwd_changed();')
    pre_post = []   # must run before the record (ids the record uses)
    if 'newstream' in r.opts:
        if re.search(r'\b(?:re)?open\(', r.rawopts):
            # a stream opened on a FIFO: its calls left out (tg_fd_fifo)
            pre_post.append('if (ret)\n\t\ttg_fstab_new(ret, %s || tg_fd_fifo(fileno_unlocked(ret)));'
                            % exn)
        else:
            pre_post.append('if (ret)\n\t\ttg_fstab_new(ret, %s);' % exn)
    if 'newdir' in r.opts:
        pre_post.append('if (ret)\n\t\ttg_dir_new(ret);')
    late = []       # after the record (the id was used in it)
    if 'newfds' in r.opts:
        post.append('if (ret == 0) {\n\t\ttg_fd_set(%s[0], 0);\n\t\ttg_fd_set(%s[1], 0);\n\t}'
                    % (r.opts['newfds'], r.opts['newfds']))
    if 'closestream' in r.opts:
        # the descriptor under the stream closes with it
        late.append('tg_fd_set(sfd_, 0);')
        late.append('tg_fstab_drop(%s);' % r.opts['closestream'])
    if 'closedir' in r.opts:
        late.append('tg_fd_set(dfd_, 0);')
    if 'closedir' in r.opts:
        late.append('tg_dir_drop(%s);' % r.opts['closedir'])
    if 'closestream' in r.opts:
        o('\tint sfd_ = tg_fd_of_stream(%s);\n' % r.opts['closestream'])
    if 'closedir' in r.opts:
        o('\tint dfd_ = tg_fd_of_dir(%s);\n' % r.opts['closedir'])
    assign = '' if isvoid else 'ret = '
    # excluded: pass through, keep the bookkeeping
    poll = 'poll' in r.opts
    o('\tif (ex || !tg_enter%s(&tgc, TG_FN_%s, %s)) {\n' % (
        '_poll' if poll else '', rec.name, layer))
    o('\t\tif (ex)\n\t\t\ttg_count_excluded();\n')
    o('\t\t%s%s;\n' % (assign, call))
    if post or pre_post or late:
        o('\t\tint e = errno;\n')
        for s in pre_post + post + late:
            o('\t\t' + s.replace('\n\t\t', '\n\t\t\t') + '\n')
        o('\t\terrno = e;\n')
    o('\t\treturn%s;\n\t}\n' % ('' if isvoid else ' ret'))
    # the path of a file opened is the one the kernel gives its
    # descriptor when that is another name (tg_path_opened)
    opened = None
    if 'newfd' in r.opts or 'newstream' in r.opts:
        m = re.search(r'\b(?:re)?open\((\w+),', r.rawopts)
        if m and any(p.name == m.group(1) and p.dir == 'in' for p in r.params):
            opened = m.group(1)
    for p in r.params:
        if p.kind in ('str',):
            o('\tuint64_t sid_%s = tg_str(tgc.t, %s);\n' % (p.name, p.name))
        elif p.kind in ('path', 'atpath') and p.dir == 'in' and p.name != opened:
            o('\tuint64_t sid_%s = tg_str(tgc.t, ap_%s);\n' % (p.name, p.name))
    o('\t%s%s;\n\ttg_end(&tgc);\n' % (assign, call))
    if opened:
        fd = 'ret' if 'newfd' in r.opts else 'ret ? fileno_unlocked(ret) : -1'
        op = next(p for p in r.params if p.name == opened)
        base = op.karg if op.kind == 'atpath' else 'AT_FDCWD'
        o('\tchar rb_%s[TG_PATH_MAX];\n\tint e_%s = errno;\n' % (opened, opened))
        o('\tuint64_t sid_%s = tg_str(tgc.t, tg_path_opened(rb_%s, ap_%s, %s, %s, %s));\n'
          '\terrno = e_%s;\n' % (opened, opened, opened, fd, opened, base, opened))
    for p in r.recorded:
        if p.kind in ('post', 'postfd', 'postoff'):
            o('\tint64_t px_%s = (int64_t)(%s);\n' % (p.name, p.karg))
    for p in r.params:
        if p.kind in ('path', 'atpath') and p.dir != 'in':
            base = p.karg if p.kind == 'atpath' else 'AT_FDCWD'
            o('\tap_%s = tg_path_prep(pb_%s, %s, %s, &ex);\n' % (p.name, p.name, p.name, base))
            if p.name in dirnamed:
                o('\tap_%s = tg_path_dir(db_%s, ap_%s, %s, %s);\n' % (
                    p.name, p.name, p.name, p.name, base))
            o('\tuint64_t sid_%s = tg_str(tgc.t, ap_%s);\n' % (p.name, p.name))
    if isvoid:
        o('\tint failed = 0;\n')
    else:
        o('\tint failed = %s;\n' % fail_expr(r))
        if r.fail == 'errret':
            o('\tif (failed)\n\t\ttgc.err = ret;\n')
    for s in pre_post:
        o('\t' + s + '\n')
    if poll:
        o('\ttg_poll_begin(&tgc, %s, failed, 0);\n' % ret_enc(r))
    else:
        o('\ttg_rec_begin(&tgc, %s, failed);\n' % ret_enc(r))
    for p in r.recorded:
        o('\t' + put_arg(p, None) + '\n')
    o('\ttg_%s(&tgc);\n' % ('poll_commit' if poll else 'rec_commit'))
    if post or late:
        o('\tint e = errno;\n')
        for s in post + late:
            o('\t' + s + '\n')
        o('\terrno = e;\n')
    if not isvoid:
        o('\treturn ret;\n')
    o('}\n')


def gen_wrappers(rows, out, byname):
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    out.write('#include "wrap-prelude.h"\n\n')
    out.write('/* glibc declares some pointer parameters as arrays (int[2]) */\n')
    out.write('#pragma GCC diagnostic ignored "-Warray-parameter"\n')
    for r in rows:
        if 'hand' in r.opts or 'nolib' in r.opts or r.mpi or r.layer == 'hdf5':
            continue
        rec = r
        if 'as' in r.opts:
            rec = byname.get(r.opts['as'])
            if rec is None:
                raise SystemExit('%s: as=%s unknown' % (r.name, r.opts['as']))
            mine = [(p.kind, p.karg is not None) for p in r.recorded]
            theirs = [(p.kind, p.karg is not None) for p in rec.recorded]
            if [KINDS[k] for k, _ in mine] != [KINDS[k] for k, _ in theirs]:
                raise SystemExit('%s: recorded arguments differ from %s' % (r.name, rec.name))
        gen_wrapper(r, rec, out)
    hooked = [r.name for r in rows if 'hooked' in r.opts]
    if hooked:
        out.write('\n/* the entries a memory-hook library may patch (shim/hooks.c) */\n'
                  '#ifdef TG_MPI_STUBS\n')
        for n in hooked:
            out.write('extern unsigned char tg_hook_entry_%s[] TG_HIDDEN;\n' % n)
        out.write('const struct tg_hooked tg_hooked[] = {\n')
        for n in hooked:
            out.write('\t{ "%s", tg_hook_entry_%s, (void *)TG_HOOKNAME(%s), &tg_hook_to_%s },\n'
                      % (n, n, n, n))
        out.write('};\nconst unsigned tg_nhooked = %d;\n#endif\n' % len(hooked))


ARRCAP = 16384   # elements recorded of one array argument (tangram-rec(5))


def mpi_len(p):
    """C expression for the recorded length of array parameter @p."""
    e = '(%s)' % p.karg
    if p.root:
        e = '(tg_is_root(comm, root) ? %s : 0)' % e
    return e


NEWH = {h + 'p' for h in HANDLES}
IOH = {h + 'io' for h in HANDLES}


def gen_mpi_wrapper(r, out):
    proto = ', '.join(p.cdecl() for p in r.params) or 'void'
    types = ', '.join(p.ctype for p in r.params) or 'void'
    args = ', '.join(p.name for p in r.params)
    # what the real call is given: a status the program ignores is still
    # wanted for the bytes an MPI-IO call moved
    # (the bytes an MPI-IO call moved), and a status a receive completes
    # is wanted for its source and tag: a wildcard receive completed with
    # MPI_STATUS_IGNORE is matched from them (paper 000 §III)
    subst = {p.name for p in r.params
             if p.kind in ('iostatus', 'status', 'statusarr') and p.dir != 'in'}
    cargs = ', '.join(('st_' + p.name) if p.name in subst else p.name for p in r.params)
    layer = LAYERS[r.layer]
    o = out.write
    # the Open MPI build (shim/mpi-ompi.c) leaves out what its mpi.h lacks
    o('\n#ifndef TG_NO_%s\n' % r.name)
    o('int %s(%s);\n' % (r.name, proto))
    o('TG_MPIFN int TG_MPINAME(%s)(%s)\n{\n' % (r.name, proto))
    o('\tstatic int (*real)(%s);\n' % types)
    o('\tstruct tg_call tgc;\n\tint ret, failed;\n\tsize_t need = 0;\n')
    o('\n\tif (tg_unlikely(!real) && !(real = (int (*)(%s))tg_real("%s", NULL)))\n'
      '\t\treturn MPI_ERR_INTERN;\n' % (types, r.name))
    poll = 'poll' in r.opts
    o('\tif (!tg_on(%s) || !tg_enter%s(&tgc, TG_FN_%s, %s))\n\t\treturn real(%s);\n'
      % (layer, '_poll' if poll else '', r.name, layer, args))
    late = []
    for p in r.params:
        h = handle_of(p.kind)
        v = p.name
        # TANGRAM_INFO: the contents of an info a call takes (the MPI_Info_
        # calls themselves show them in their own records)
        if p.kind == 'str':
            o('\tuint64_t sid_%s = tg_str(tgc.t, %s);\n' % (v, v))
        elif p.kind in IOH:
            o('\tuint64_t hv_%s = %s ? TG_HVAL(*%s) : 0;\n' % (v, v, v))
            o('\tuint64_t htk_%s = 0, hid_%s = %s ? tg_h_enc_tok(%s, hv_%s, &htk_%s) : 0;\n'
              % (v, v, v, h, v, v))
            late.append('if (!failed && %s && TG_HVAL(*%s) != hv_%s)\n\t\ttg_h_free(%s, hv_%s, htk_%s);'
                        % (v, v, v, h, v, v))
        elif p.kind == 'reqarr':
            o('\tstruct tg_reqs rq_%s;\n\ttg_reqs_pre(&rq_%s, %s, %s);\n' % (v, v, v, mpi_len(p)))
            late.append('tg_reqs_post(&rq_%s, %s, failed);' % (v, v))
        elif p.kind == 'info' and not r.name.startswith('MPI_Info_'):
            o('\tif (tg_unlikely(tg_info_on))\n\t\ttg_info_def(tgc.t, %s);\n' % v)
        elif p.kind in ('iostatus', 'status') and v in subst:
            # the standard's empty status, for a call that sets none
            o('\tMPI_Status tgs_%s = { .MPI_SOURCE = MPI_ANY_SOURCE, .MPI_TAG = MPI_ANY_TAG }, *st_%s = %s == MPI_STATUS_IGNORE ? &tgs_%s : %s;\n'
              % (v, v, v, v, v))
        elif p.kind == 'statusarr' and v in subst:
            # room for one status per request: Waitsome's count of
            # statuses (*outcount) is known only after the call
            rq = [q for q in r.params if q.kind == 'reqarr']
            o('\tMPI_Status tgs_%s[TG_STATUSES_LOCAL], *st_%s = tg_statuses_pre(%s, %s, tgs_%s);\n'
              % (v, v, v, mpi_len(rq[0] if rq else p), v))
            late.append('tg_statuses_post(st_%s, %s, tgs_%s);' % (v, v, v))
    for p in r.recorded:
        if p.kind == 'pre':
            o('\tint64_t px_%s = %s;\n' % (p.name, p.karg))
    o('\tret = real(%s);\n\ttg_end(&tgc);\n' % cargs)
    for p in r.params:
        if p.kind == 'statusarr' and p.name in subst:
            o('\tret = tg_statuses_ret(ret, st_%s, %s, %s);\n' % (p.name, p.name, mpi_len(p)))
    o('\tfailed = ret != MPI_SUCCESS;\n')
    for p in r.recorded:
        if p.kind == 'post':
            o('\tint64_t px_%s = %s;\n' % (p.name, p.karg))
    for p in r.params:
        h = handle_of(p.kind)
        v = p.name
        if p.kind in NEWH:
            o('\tuint64_t hid_%s = !failed && %s ? tg_h_new(&tgc, %s, TG_HVAL(*%s)) : 0;\n'
              % (v, v, h, v))
            if p.kind == 'infop' and not r.name.startswith('MPI_Info_'):
                o('\tif (tg_unlikely(tg_info_on) && !failed && %s)\n\t\ttg_info_def(tgc.t, *%s);\n'
                  % (v, v))
        elif p.kind == 'outstr':
            o('\tuint64_t sid_%s = !failed && %s ? tg_str(tgc.t, %s) : 0;\n' % (v, v, v))
        if p.karg is not None and p.kind not in ('reqarr',):
            o('\tneed += 2 * TG_VARINT_MAX * (size_t)tg_cap(%s);\n' % mpi_len(p))
        elif p.kind == 'reqarr':
            o('\tneed += TG_VARINT_MAX * (size_t)rq_%s.n;\n' % v)
    o('\ttg_%s(&tgc, ret, 0, need);\n' % ('poll_begin' if poll else 'rec_begin_n'))
    # a test or probe that found nothing sets no status: none is recorded
    # (it held what the program's memory did)
    unset = 'failed'
    if any(q.name == 'flag' and q.kind == 'outval' for q in r.params):
        unset = '(failed || !flag || !*flag)'
    for p in r.recorded:
        h = handle_of(p.kind)
        v, k = p.name, p.kind
        if k in ('int',) and v in RANK_ARGS:
            o('\ttg_put_s(&tgc, (int64_t)TG_RANK(%s));\n' % v)
        elif k in ('int',) and v in CONST_ARGS:
            o('\ttg_put_s(&tgc, (int64_t)TG_CONST(%s, %d));\n' % (v, CONST_ARGS[v]))
        elif k in ('int',):
            o('\ttg_put_s(&tgc, (int64_t)%s);\n' % v)
        elif k == 'str' or k == 'outstr':
            o('\ttg_put_u(&tgc, sid_%s);\n' % v)
        elif k == 'buf':
            o('\ttg_put_u(&tgc, tg_ptr_id(tgc.t, (const void *)%s));\n' % v)
        elif k == 'outval' and v in RANK_ARGS:
            o('\ttg_put_s(&tgc, !failed && %s ? (int64_t)TG_RANK(*%s) : 0);\n' % (v, v))
        elif k == 'outval':
            o('\ttg_put_s(&tgc, !failed && %s ? (int64_t)*%s : 0);\n' % (v, v))
        elif k == 'intptr':
            o('\ttg_put_s(&tgc, %s ? (int64_t)*%s : 0);\n' % (v, v))
        elif k == 'intarr' and v in CONST_ARGS:
            o('\tTG_PUT_CARR(&tgc, %s, %s, %d);\n' % (v, mpi_len(p), CONST_ARGS[v]))
        elif k == 'intarr':
            o('\tTG_PUT_ARR(&tgc, %s, %s);\n' % (v, mpi_len(p)))
        elif k == 'rangearr':
            o('\tTG_PUT_ARR(&tgc, (const int *)%s, 3 * %s);\n' % (v, mpi_len(p)))
        elif k == 'outintarr':
            o('\tTG_PUT_ARR(&tgc, failed ? NULL : %s, %s);\n' % (v, mpi_len(p)))
        elif k == 'status':
            o('\ttg_put_status(&tgc, %s ? NULL : %s%s, %d);\n' % (
                unset, 'st_' if v in subst else '', v, r.name in PROBES))
        elif k == 'iostatus':
            o('\ttg_put_iostatus(&tgc, failed ? NULL : st_%s);\n' % v)
        elif k in ('pre', 'post'):
            o('\ttg_put_s(&tgc, px_%s);\n' % v)
        elif k == 'statusarr':
            o('\ttg_put_statuses(&tgc, %s ? NULL : %s%s, %s);\n' % (
                unset, 'st_' if v in subst else '', v, mpi_len(p)))
        elif k == 'reqarr':
            o('\ttg_reqs_put(&tgc, &rq_%s);\n' % v)
        elif k.startswith('harr_') or k.startswith('hout_'):
            o('\tTG_PUT_HARR(&tgc, %s, %s, %s);\n' % (h, k.startswith('hout_') and ('failed ? NULL : ' + v) or v, mpi_len(p)))
        elif k in IOH or k in NEWH:
            o('\ttg_put_u(&tgc, hid_%s);\n' % v)
        elif k in HANDLES:
            o('\ttg_put_u(&tgc, tg_h_enc(%s, TG_HVAL(%s)));\n' % (h, v))
        elif k.endswith('ptr') and k[:-3] in HANDLES:
            o('\ttg_put_u(&tgc, %s ? tg_h_enc(%s, TG_HVAL(*%s)) : 0);\n' % (v, h, v))
        else:
            raise SystemExit('%s: no MPI encoding for kind %s' % (r.name, k))
    o('\ttg_%s(&tgc);\n' % ('poll_commit' if poll else 'rec_commit'))
    if not late:
        o('\t(void)failed;\n')
    for s_ in late:
        o('\t' + s_ + '\n')
    o('\treturn ret;\n}\n#endif\n')


# Arguments that are ranks, or MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT:
# recorded as MPICH numbers them (TG_RANK, mpi-shim.h).
RANK_ARGS = {'source', 'dest', 'root', 'target_rank', 'rank_source', 'rank_dest'}
# The probes: their statuses are never a cancelled request's (tg_put_status).
PROBES = {'MPI_Probe', 'MPI_Iprobe', 'MPI_Mprobe', 'MPI_Improbe'}
# Arguments that hold a library's constants for a subarray's or a darray's
# order (0), distributions (1) and distribution arguments (2), recorded as
# MPICH numbers them (TG_CONST, mpi-shim.h).
CONST_ARGS = {'order': 0, 'array_of_distribs': 1, 'array_of_dargs': 2, 'lock_type': 3,
              'assert': 4}


def gen_mpi_wrappers(rows, out):
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
    out.write('#include "mpi-shim.h"\n')
    for r in rows:
        if r.mpi and 'hand' not in r.opts and 'nolib' not in r.opts:
            gen_mpi_wrapper(r, out)


# The calls ROMIO makes through PMPI_ inside an MPI-IO call that are
# recorded, nested in it (shim/pmpi.c): its blocking communication and its
# communicators.  Nonblocking calls are left out: their completion may come
# in another call of the program's.
ROMIO_INSIDE = {
    'MPI_Send', 'MPI_Recv', 'MPI_Barrier', 'MPI_Bcast', 'MPI_Allreduce', 'MPI_Allgather',
    'MPI_Alltoall', 'MPI_Alltoallv', 'MPI_Alltoallw', 'MPI_Gather', 'MPI_Gatherv',
    'MPI_Comm_dup', 'MPI_Comm_split', 'MPI_Comm_create', 'MPI_Comm_free',
}


def gen_pmpi_entries(rows, out):
    """The tracer's PMPI_NAME for every generated MPI_NAME: to the wrapper
    when tg_pmpi_traced() says the call is the program's, else to the
    library's PMPI_NAME."""
    out.write('/* Generated by shim/gen-calls.py from the call tables: do not edit.\n'
              ' * Included by shim/pmpi.c. */\n')
    for r in rows:
        if not r.mpi or 'hand' in r.opts or 'nolib' in r.opts:
            continue
        proto = ', '.join(p.cdecl() for p in r.params) or 'void'
        types = ', '.join(p.ctype for p in r.params) or 'void'
        args = ', '.join(p.name for p in r.params)
        pname = 'P' + r.name
        o = out.write
        o('\n#ifndef TG_NO_%s\n' % r.name)
        o('int %s(%s);\n' % (pname, proto))
        o('TG_PMPI_WRAPPER(%s, (%s))\n' % (r.name, proto))
        o('TG_MPIFN int TG_MPINAME(%s)(%s)\n{\n' % (pname, proto))
        o('\tstatic int (*real)(%s);\n\n' % types)
        o('\tif (tg_unlikely(!real) && !(real = (int (*)(%s))tg_real("%s", NULL)))\n'
          '\t\treturn MPI_ERR_INTERN;\n' % (types, pname))
        o('\tif (!tg_pmpi_traced(__builtin_return_address(0), "%s", %d))\n'
          '\t\treturn real(%s);\n' % (r.name[4:], r.name in ROMIO_INSIDE, args))
        o('\treturn TG_MPINAME(%s)(%s);\n}\n#endif\n' % (r.name, args))


def main():
    files = sys.argv[1:] or ['libcommon/calls.tab', 'shim/mpi.tab', 'shim/h5.tab']
    rows = load(files)
    ids, names = {}, {}
    for r in rows:
        if r.name in names:
            raise SystemExit('duplicate name ' + r.name)
        names[r.name] = r
        if r.id is not None:
            if r.id in ids:
                raise SystemExit('duplicate id %d (%s, %s)' % (r.id, r.name, ids[r.id].name))
            ids[r.id] = r
    with open('libcommon/funcid.gen.h', 'w') as f:
        gen_header(rows, f)
    with open('libcommon/calltab.gen.c', 'w') as f:
        gen_table(rows, f)
    with open('shim/wrappers.gen.c', 'w') as f:
        gen_wrappers(rows, f, names)
    # the POSIX and stdio functions the shim defines, for static linking
    # with -Wl,--wrap (see the Makefile's lib/libtangram.a)
    with open('shim/wrapnames.gen.txt', 'w') as f:
        for r in rows:
            if not r.mpi and r.layer in ('posix', 'stdio') and 'nolib' not in r.opts:
                f.write(r.name + '\n')
    # the same functions' real definitions, looked up when the tracer
    # starts (shim/core.c, real_preload)
    with open('shim/realnames.gen.h', 'w') as f:
        f.write('/* Generated by shim/gen-calls.py from the call tables: do not edit. */\n')
        for r in rows:
            if not r.mpi and r.layer in ('posix', 'stdio') and 'nolib' not in r.opts:
                ver = '"%s"' % r.opts['ver'] if 'ver' in r.opts else 'NULL'
                f.write('TG_REALNAME("%s", %s)\n' % (r.name, ver))
    if any(r.mpi for r in rows):
        with open('shim/mpi-wrappers.gen.c', 'w') as f:
            gen_mpi_wrappers(rows, f)
        with open('shim/pmpi.gen.c', 'w') as f:
            gen_pmpi_entries(rows, f)
    if any(r.layer == 'hdf5' for r in rows):
        with open('shim/h5-wrappers.gen.c', 'w') as f, \
                open('shim/h5-mpi-wrappers.gen.c', 'w') as mf:
            gen_h5.gen_wrappers(rows, LAYERS, f, mf)
        gen_h5.gen_names('libcommon/h5names.gen.c')


if __name__ == '__main__':
    main()
