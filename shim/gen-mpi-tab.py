#!/usr/bin/env python3
"""gen-mpi-tab.py - write shim/mpi.tab, the MPI rows of the call table.

Inputs: the MPI Forum's machine-readable API (../shared/mpi/apis.json: each
parameter's semantic kind, direction, array length, root-only flag) and
MPICH's own prototypes (mpi_proto.h: the exact C types).  A procedure is
traced when MPICH declares it; its argument kinds come from apis.json, its
C types from the header.  Ids already in shim/mpi.tab are kept (ids are
fixed forever); new procedures get new ids after the largest.

Run from the top of the tree:
  python3 shim/gen-mpi-tab.py ../shared/mpi/apis.json \
      /usr/include/x86_64-linux-gnu/mpich/mpi_proto.h > shim/mpi.tab.new
"""
import json
import os
import re
import sys

FIRST_ID = 1000

# Written by hand in shim/mpi.c (they start, end or abort tracing).
HAND = {
    'MPI_Init': ('', ''),
    'MPI_Init_thread': ('int *argc:-, char ***argv:-, int required:int, int *provided:outval:out', ''),
    'MPI_Finalize': ('', ''),
    'MPI_Abort': ('MPI_Comm comm:comm, int errorcode:int', ''),
}

# Not traced: not part of the program's communication or I/O semantics, or
# not callable through a C wrapper of this form.
def skipped(name, ret):
    if ret != 'int':
        return True          # Wtime, Wtick, *_f2c/_c2f, Aint_add/diff
    if name.startswith('MPI_T_') or name.startswith('MPIX_'):
        return True          # the tools interface; MPICH extensions
    if name in ('MPI_Pcontrol',):
        return True          # variadic, no semantics
    if name.endswith('_c2f') or name.endswith('_f2c') or '_f08' in name or 'f082' in name \
            or name.endswith('c2f08'):
        return True
    return False


# MPI-1 procedures that MPI-3 removed (so apis.json lacks them) but MPICH
# still exports: described by their successors, which take the same
# arguments in the same order.
REMOVED = {
    'MPI_Address': 'mpi_get_address',
    'MPI_Errhandler_create': 'mpi_comm_create_errhandler',
    'MPI_Errhandler_get': 'mpi_comm_get_errhandler',
    'MPI_Errhandler_set': 'mpi_comm_set_errhandler',
    'MPI_Type_extent': 'mpi_type_get_true_extent',
    'MPI_Type_hindexed': 'mpi_type_create_hindexed',
    'MPI_Type_hvector': 'mpi_type_create_hvector',
    'MPI_Type_struct': 'mpi_type_create_struct',
}

# Array lengths apis.json leaves open ('*') that are not the size of the
# communicator.
STAR = {
    ('MPI_Cart_rank', 'coords'): 'tg_cartdim(comm)',
    ('MPI_Cart_sub', 'remain_dims'): 'tg_cartdim(comm)',
    ('MPI_Graph_map', 'edges'): 'tg_graph_nedges(nnodes, indx)',
    ('MPI_Graph_create', 'edges'): 'tg_graph_nedges(nnodes, indx)',
}

# Open MPI 4.1's persistent collectives (MPI 4.0's MPI_*_init) are
# MPIX_*_init in its mpi-ext.h, with the same arguments: traced as rows of
# their own, described by the MPI 4.0 procedure (MPICH has no MPIX_ of
# these names, and its wrapper is then never called).
OMPI_MPIX = ['Allgather', 'Allgatherv', 'Allreduce', 'Alltoall', 'Alltoallv', 'Alltoallw',
             'Barrier', 'Bcast', 'Exscan', 'Gather', 'Gatherv', 'Neighbor_allgather',
             'Neighbor_allgatherv', 'Neighbor_alltoall', 'Neighbor_alltoallv',
             'Neighbor_alltoallw', 'Reduce', 'Reduce_scatter_block', 'Reduce_scatter',
             'Scan', 'Scatter', 'Scatterv']

# Calls programs repeat until something completes: marked "poll", so the
# tracer folds a run of identical records (calls.tab, tangram-rec(5)).
POLL = {'MPI_Test', 'MPI_Testany', 'MPI_Testall', 'MPI_Testsome', 'MPI_Iprobe',
        'MPI_Improbe', 'MPI_Request_get_status', 'MPI_Win_test'}

HANDLES = {
    'MPI_Comm': 'comm', 'MPI_Group': 'group', 'MPI_Datatype': 'dtype',
    'MPI_Request': 'req', 'MPI_Op': 'op', 'MPI_Info': 'info',
    'MPI_File': 'file', 'MPI_Win': 'win', 'MPI_Errhandler': 'errh',
    'MPI_Message': 'msg', 'MPI_Session': 'session',
}
INTS = ('int', 'MPI_Aint', 'MPI_Offset', 'MPI_Count', 'MPI_Fint')


def parse_protos(path):
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    protos = {}
    for m in re.finditer(r'^([A-Za-z_][\w ]*?\**)\s*\b(MPI_\w+)\s*\(([^;]*?)\)\s*([^;]*);',
                         text, flags=re.M):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        params = ' '.join(params.split())
        plist = []
        if params and params != 'void':
            depth, cur = 0, ''
            for ch in params:
                if ch == ',' and depth == 0:
                    plist.append(cur.strip())
                    cur = ''
                    continue
                depth += ch == '('
                depth -= ch == ')'
                cur += ch
            plist.append(cur.strip())
        protos[name] = (ret, plist)
    return protos


def split_decl(decl):
    """'const int array_of_ranks[]' -> ('const int *', 'array_of_ranks')"""
    if decl == '...':
        return '...', 'varargs'
    if decl.endswith('[][3]'):
        return 'int (*)[3]', decl[:-5].split()[-1]
    arr = decl.endswith('[]')
    if arr:
        decl = decl[:-2].strip()
    m = re.match(r'^(.*?)\b(\w+)$', decl)
    ctype, name = m.group(1).strip(), m.group(2)
    if arr:
        ctype += ' *'
    ctype = re.sub(r'\s*\*', ' *', ctype).replace('* *', '**').strip()
    return ctype, name


def base_type(ctype):
    t = ctype.replace('const ', '').replace('*', '').strip()
    return t, ctype.count('*')


def star_len(fname, pname, params, pkind):
    """Length of an array apis.json leaves unspecified ('*')."""
    names = [p for p, _ in params]
    base = fname[:-2] if fname.endswith('_c') else fname
    if (base, pname) in STAR:
        return STAR[(base, pname)]
    if 'statuses' in pname or pname == 'array_of_indices':
        if 'outcount' in names:
            return 'tg_nonneg(*outcount)'
        for c in ('count', 'incount'):
            if c in names:
                return c
    if fname.startswith('MPI_Neighbor_') or fname.startswith('MPI_Ineighbor_'):
        if pname.startswith('send') or pname.startswith('s'):
            return 'tg_nbr_out(comm)'
        return 'tg_nbr_in(comm)'
    if 'comm' in names:
        return 'tg_comm_arrlen(comm)'
    if 'count' in names:
        return 'count'
    return None


# MPI-IO calls that use a file pointer also record where it stood, so that a
# tool can place their bytes without replaying seeks: the individual pointer
# at entry, or the shared pointer at entry and at exit: exact for a
# shared-pointer call no other rank races with; for an ordered call the
# same two: the call started at most at the value at exit (the smallest of
# the ranks' readings: one that returned first may have moved it on since)
# less the bytes of all ranks, and at least at each rank's value at entry
# less the bytes of the ranks below it; rank r's bytes start where it
# started plus those of the ranks below r.  An ordered _begin takes the
# turns as the blocking call does, so it records the same.
# Pseudo-arguments, not in the prototype.
def io_position(name):
    base = name[:-2] if name.endswith('_c') else name
    if not base.startswith('MPI_File_'):
        return []
    op = base[len('MPI_File_'):]
    if op.endswith('_end') or op.startswith('get_') or op.startswith('set_'):
        return []
    if re.match(r'^i?(read|write)(_all)?(_begin)?$', op):
        return ['MPI_Offset position:pre(tg_io_position(fh))']
    if re.match(r'^i?(read|write)_shared$', op):
        return ['MPI_Offset shared_before:pre(tg_io_shared(fh))',
                'MPI_Offset shared_after:post(tg_io_shared(fh))']
    if re.match(r'^(read|write)_ordered(_begin)?$', op):
        # ranks take their turn at the pointer inside the call: its value
        # at exit bounds where the call started from above, each rank's
        # value at entry (less the lower ranks' units) from below
        # (shared_before was appended later: schemas only grow at the end)
        if op.endswith('_begin'):
            return ['MPI_Offset shared_after:post(tg_io_shared(fh)):appended',
                    'MPI_Offset shared_before:pre(tg_io_shared(fh)):appended']
        return ['MPI_Offset shared_after:post(tg_io_shared(fh))',
                'MPI_Offset shared_before:pre(tg_io_shared(fh)):appended']
    return []


# A communicator made by a nonblocking call (MPI_Comm_idup) has its
# members only when the request completes: the call records that its
# #comm line is deferred to the completion (tg_comm_defer).
def comm_deferred(name):
    if name in ('MPI_Comm_idup', 'MPI_Comm_idup_with_info'):
        return ['int deferred:post(tg_comm_defer(newcomm, request, failed))']
    return []


# A program that uses MPI sessions alone (no MPI_Init) has no
# MPI_COMM_WORLD: the tracer takes the group of the "mpi://WORLD" process
# set the program asks for as the world, for its rank and the members of
# its communicators (tg_session_world).
def session_world(name):
    if name == 'MPI_Group_from_session_pset':
        return ['int world:post(tg_session_world(pset_name, newgroup, failed))']
    return []


def kind_for(fname, ctype, pname, jp, params):
    """Our kind spec for one parameter, or '-' (not recorded)."""
    t, stars = base_type(ctype)
    kind = jp['kind'] if jp else ''
    d = jp['param_direction'] if jp else ('in' if 'const' in ctype or stars == 0 else 'out')
    length = jp['length'] if jp else None
    if isinstance(length, list):
        length = None
    root = jp and jp.get('root_only')
    dirs = {'in': '', 'out': ':out', 'inout': ':inout'}[d]
    if root:
        dirs = (dirs or ':in') + ':root'
    lenexpr = None
    if length == '*' or (fname, pname) in STAR:
        lenexpr = star_len(fname, pname, params, kind)
    elif length and re.match(r'^\w+$', str(length)):
        lenexpr = str(length)
        if not lenexpr.startswith('MPI_') and lenexpr not in [p for p, _ in params]:
            lenexpr = None
    if t in HANDLES:
        h = HANDLES[t]
        if stars == 0:
            return h + dirs
        if length:           # an array of handles
            if not lenexpr or lenexpr.startswith('MPI_'):
                return '-'
            if h == 'req' and d == 'inout':
                return 'reqarr(%s)%s' % (lenexpr, dirs)
            if d == 'in':
                return 'harr_%s(%s)%s' % (h, lenexpr, dirs)
            return 'hout_%s(%s)%s' % (h, lenexpr, dirs)
        if d == 'out':
            return h + 'p' + dirs
        if d == 'inout':
            return h + 'io' + dirs
        return h + 'ptr' + dirs     # read through the pointer (e.g. MPI_Info_dup)
    if t == 'MPI_Status':
        if fname.startswith('MPI_File_') and not length:
            return 'iostatus' + dirs     # bytes moved, not source and tag
        if length:
            if not lenexpr:
                return '-'
            return 'statusarr(%s)%s' % (lenexpr, dirs)
        return 'status' + dirs
    if t in INTS:
        if stars == 0:
            return 'int' + dirs
        if stars == 1:
            if length:
                if not lenexpr or lenexpr.startswith('MPI_'):
                    return '-'
                if d == 'in':
                    return 'intarr(%s)%s' % (lenexpr, dirs)
                return 'outintarr(%s)%s' % (lenexpr, dirs)
            if d == 'in':
                return 'intptr' + dirs
            return 'outval' + dirs
        return '-'
    if t == 'char':
        if stars == 1 and d == 'in':
            return 'str' + dirs
        if stars == 1 and d == 'out':
            return 'outstr' + dirs
        return '-'
    if t == 'void':
        if stars >= 1:
            return 'buf' + dirs
        return '-'
    if t.endswith('_function') or t.endswith('_fn') or 'function' in t:
        return 'buf'
    return '-'


KINDNAMES = {'MPI_Comm': 'TG_H_COMM', 'MPI_Group': 'TG_H_GROUP',
             'MPI_Datatype': 'TG_H_DTYPE', 'MPI_Request': 'TG_H_REQ',
             'MPI_Op': 'TG_H_OP', 'MPI_Info': 'TG_H_INFO', 'MPI_File': 'TG_H_FILE',
             'MPI_Win': 'TG_H_WIN', 'MPI_Errhandler': 'TG_H_ERRH',
             'MPI_Message': 'TG_H_MSG', 'MPI_Session': 'TG_H_SESSION'}


def write_names(header, out):
    """The predefined handles and combiners of MPICH's mpi.h, for printing."""
    text = open(header).read()
    rows = []
    for m in re.finditer(r'^#define (MPI_\w+)\s+\(?\((MPI_\w+)\)\s*\(?(0x[0-9a-fA-F]+|0)\)?', text, re.M):
        name, typ, val = m.groups()
        if typ in KINDNAMES:
            rows.append((KINDNAMES[typ], int(val, 16) if val.startswith('0x') else 0, name))
    combs = re.findall(r'^\s*(MPI_COMBINER_\w+)\s*=\s*(\d+)', text, re.M)
    out.write('/* Generated by shim/gen-mpi-tab.py from mpi.h: do not edit. */\n')
    out.write('#include <stddef.h>\n#include <stdint.h>\n\n#include "calltab.h"\n#include "names.h"\n\n')
    out.write('const struct tg_mpiname tg_mpi_names[] = {\n')
    for k, v, n in rows:
        out.write('\t{ %s, 0x%08x, "%s" },\n' % (k, v, n))
    out.write('\t{ 0, 0, NULL }\n};\n\n')
    out.write('const char *const tg_mpi_combiners[] = {\n')
    for n, v in combs:
        out.write('\t[%s] = "%s",\n' % (v, n))
    out.write('};\n\nconst unsigned tg_mpi_ncombiners = %d;\n' % (max(int(v) for _, v in combs) + 1))


def main():
    if sys.argv[1] == '--names':
        with open(sys.argv[3], 'w') as f:
            write_names(sys.argv[2], f)
        return
    apis = json.load(open(sys.argv[1]))
    protos = parse_protos(sys.argv[2])
    if len(sys.argv) > 4:                           # ROMIO's mpio.h: MPI-IO
        for k, v in parse_protos(sys.argv[4]).items():
            protos.setdefault(k, v)
    old, roles = {}, {}
    if len(sys.argv) > 3 and os.path.exists(sys.argv[3]):
        for line in open(sys.argv[3]):
            m = re.match(r'^(\d+) \w+ (\w+) ', line)
            if m:
                old[m.group(2)] = int(m.group(1))
                # the roles (tokens with parentheses in the options) are
                # written by hand in mpi.tab and kept, as the ids are
                opts = line.rstrip('\n').split('|')[-1].split()
                roles[m.group(2)] = ' '.join(o for o in opts if '(' in o)
    nextid = max([FIRST_ID - 1] + list(old.values())) + 1
    rows = []
    for x in OMPI_MPIX:
        if 'MPI_%s_init' % x in protos:
            protos['MPIX_%s_init' % x] = protos['MPI_%s_init' % x]
    for name in sorted(protos):
        ret, plist = protos[name]
        if skipped(name, ret) and not (name.startswith('MPIX_') and name[5:-5] in OMPI_MPIX):
            continue
        base = name[:-2] if name.endswith('_c') else name
        if base.startswith('MPIX_'):
            base = 'MPI_' + base[5:]
        j = apis.get(REMOVED.get(base, base.lower()))
        jparams = [p for p in j['parameters'] if 'c_parameter' not in p['suppress']] if j else []
        decls = [split_decl(p) for p in plist]
        params = [(n, c) for c, n in decls]
        if name in old:
            fid = old[name]
        else:
            fid = nextid
            nextid += 1
        layer = 'mpiio' if name.startswith('MPI_File_') or name.startswith('MPI_Register_datarep') else 'mpi'
        if name in HAND:
            ps, opts = HAND[name]
            rows.append((fid, ('%d %s %s | int:int:none | %s | hand %s' % (
                fid, layer, name, ps, roles.get(name, ''))).rstrip()))
            continue
        out = []
        for i, (ctype, pname) in enumerate(decls):
            jp = jparams[i] if i < len(jparams) and len(jparams) == len(decls) else None
            if jp is None:
                jp = next((p for p in jparams if p['name'] == pname), None)
            k = kind_for(name, ctype, pname, jp, params)
            if ctype.startswith('MPIO_Request'):
                ctype = ctype.replace('MPIO_Request', 'MPI_Request')   # a #define in mpio.h
                k = 'reqp:out'
            out.append('%s %s:%s' % (ctype, pname, k) if not ctype.endswith('*')
                       else '%s%s:%s' % (ctype, pname, k))
        out += io_position(name)
        out += comm_deferred(name)
        out += session_world(name)
        role = roles.get(name) or (roles.get('MPI_' + name[5:], '') if name.startswith('MPIX_') else '')
        opts = (role + (' poll' if name in POLL else '')).strip()
        rows.append((fid, ('%d %s %s | int:int:none | %s | %s' % (
            fid, layer, name, ', '.join(out), opts)).rstrip()))
    print('# mpi.tab - the MPI and MPI-IO rows of the call table, generated by')
    print('# shim/gen-mpi-tab.py from the MPI Forum\'s apis.json and MPICH\'s')
    print('# mpi_proto.h; ids are kept across regenerations.  Format: see')
    print('# libcommon/calls.tab.  Kinds: see shim/gen-calls.py.')
    for fid, r in sorted(rows):
        print(r)


if __name__ == '__main__':
    main()
