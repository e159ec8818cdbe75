#!/usr/bin/env python3
"""Print the docs/compatibility.md table from results of the MXNet unit-test harness
(/work/shared/tools/mxnet-tests/run.py): per file, the tests real MXNet 1.9.1 passes, those
of them that use sparse storage, how many of them symmod passes (all, and of the tests
without sparse storage), and symmod's total.

    python tools/compat_table.py --mxnet <out>/mxnet [--mxnet <more>/mxnet] \\
        --symmod <out>/symmod [--symmod <more>/symmod] [--files a,b,...] [--fails]

Each directory holds ``<file>.json`` (and ``<file>.<tag>.json`` for a file run in chunks);
chunks and directories are merged, a later result replacing an earlier one unless it is
'notrun'. Tests MXNet does not pass (network, time limits) count for neither side. A test
uses sparse storage when its source in MXNet's test file (read from the git directory in
``MXNET_MIRROR`` or ``--mirror``, tag 1.9.1) names ``row_sparse``, ``csr`` or ``sparse``;
without a mirror, when symmod's failure message names a sparse storage type. ``--files``
defaults to issue 13's 32 files (the harness's 28 default files, loss, contrib_text,
gluon_utils and higher_order_grad). ``--fails`` lists the MXNet-passing tests symmod does
not pass, with the first error line.
"""
import argparse
import ast
import glob
import json
import os
import re
import subprocess

FILES = ('symbol,executor,optimizer,module,rnn,metric,init,io,kvstore,gluon_trainer,attr,viz,'
         'infer_type,engine,recordio,profiler,autograd,contrib_optimizer,contrib_operator,'
         'subgraph,gluon_data,gluon_data_vision,image,random,gluon_contrib,ndarray,gluon,'
         'operator,loss,contrib_text,gluon_utils,higher_order_grad')
SPARSE_MESSAGE = re.compile(r"row_sparse|'csr'|sparse storage|SparseEmbedding|stype")
SPARSE_SOURCE = re.compile(r"row_sparse|csr|sparse")


def load(directories):
    """{file: {test id: record}} merged over directories and chunks."""
    results = {}
    for directory in directories:
        for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
            data = json.load(open(path))
            tests = results.setdefault(data['file'], {})
            for nodeid, record in data['tests'].items():
                if record['status'] != 'notrun' or nodeid not in tests:
                    tests[nodeid] = record
    return results


def sparse_tests(mirror, name):
    """Names of the test functions of test_<name>.py whose source uses sparse storage."""
    source = subprocess.run(['git', '-C', mirror, 'show',
                             '1.9.1:tests/python/unittest/test_%s.py' % name],
                            capture_output=True, text=True, check=True).stdout
    return {node.name for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)
            and SPARSE_SOURCE.search(ast.get_source_segment(source, node))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mxnet', action='append', required=True)
    parser.add_argument('--symmod', action='append', required=True)
    parser.add_argument('--files', default=FILES)
    parser.add_argument('--mirror', default=os.environ.get('MXNET_MIRROR'))
    parser.add_argument('--fails', action='store_true')
    args = parser.parse_args()
    mxnet, symmod = load(args.mxnet), load(args.symmod)
    rows, fails = [], []
    totals = [0, 0, 0, 0, 0]
    for name in sorted(args.files.split(',')):
        ours = symmod.get(name, {})
        passing = sorted(t for t, r in mxnet.get(name, {}).items() if r['status'] == 'passed')
        if args.mirror:
            marked = sparse_tests(args.mirror, name)
            sparse = [t for t in passing if t.split('::')[-1].split('[')[0] in marked]
        else:
            sparse = [t for t in passing
                      if SPARSE_MESSAGE.search(ours.get(t, {}).get('msg') or '')]
        both = [t for t in passing if ours.get(t, {}).get('status') == 'passed']
        dense = [t for t in passing if t not in sparse]
        dense_both = [t for t in both if t not in sparse]
        total = sum(1 for r in ours.values() if r['status'] == 'passed')
        share = 100.0 * len(both) / len(passing) if passing else 100.0
        rows.append('| %s | %d | %d | %.0f%% | %d | %d of %d | %d |'
                    % (name, len(passing), len(both), share, len(sparse), len(dense_both),
                       len(dense), total))
        for i, value in enumerate((len(passing), len(both), len(sparse), len(dense_both),
                                   total)):
            totals[i] += value
        fails += ['%s %s: %s %s' % (name, t.split('::')[-1], ours.get(t, {}).get('status', 'absent'),
                                    (ours.get(t, {}).get('msg') or '')[:160])
                  for t in passing if t not in both]
    print('| file | MXNet passes | symmod passes of those | share | of those use sparse '
          '| symmod passes without sparse | symmod passes (all) |')
    print('|---|---|---|---|---|---|---|')
    print('\n'.join(rows))
    dense_total = totals[0] - totals[2]
    print('| **total** | **%d** | **%d** | **%.0f%%** | **%d** | **%d of %d** | **%d** |'
          % (totals[0], totals[1], 100.0 * totals[1] / max(totals[0], 1), totals[2],
             totals[3], dense_total, totals[4]))
    if args.fails:
        print()
        print('\n'.join(fails))


if __name__ == '__main__':
    main()
