#!/usr/bin/env python3
"""Print the docs/compatibility.md table from results of the MXNet unit-test harness
(/work/shared/tools/mxnet-tests/run.py): per file, the tests real MXNet 1.9.1 passes, those
of them that need sparse storage (out of scope, counted apart), how many of the rest symmod
passes, and symmod's total.

    python tools/compat_table.py --mxnet <out>/mxnet [--mxnet <more>/mxnet] \
        --symmod <out>/symmod [--symmod <more>/symmod] [--fails]

Each directory holds ``<file>.json`` (and ``<file>.<tag>.json`` for a file run in chunks);
chunks and directories are merged, a later result replacing an earlier one unless it is
'notrun'. Tests MXNet does not pass (network, time limits) count for neither side. A test
needs sparse storage when symmod's failure names a sparse storage type. ``--fails`` lists
the MXNet-passing tests symmod does not pass, with the first error line.
"""
import argparse
import glob
import json
import os
import re

SPARSE = re.compile(r"row_sparse|'csr'|sparse storage|SparseEmbedding|stype")


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


def needs_sparse(record):
    return record is not None and bool(SPARSE.search(record.get('msg') or ''))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mxnet', action='append', required=True)
    parser.add_argument('--symmod', action='append', required=True)
    parser.add_argument('--fails', action='store_true')
    args = parser.parse_args()
    mxnet, symmod = load(args.mxnet), load(args.symmod)
    rows, fails = [], []
    totals = [0, 0, 0, 0]
    for name in sorted(mxnet):
        ours = symmod.get(name, {})
        passing = sorted(t for t, r in mxnet[name].items() if r['status'] == 'passed')
        sparse = [t for t in passing if needs_sparse(ours.get(t))]
        dense = [t for t in passing if t not in sparse]
        both = [t for t in dense if ours.get(t, {}).get('status') == 'passed']
        total = sum(1 for r in ours.values() if r['status'] == 'passed')
        share = 100.0 * len(both) / len(dense) if dense else 100.0
        rows.append('| %s | %d | %d | %d | %.0f%% | %d |'
                    % (name, len(passing), len(sparse), len(both), share, total))
        for i, value in enumerate((len(passing), len(sparse), len(both), total)):
            totals[i] += value
        fails += ['%s %s: %s %s' % (name, t.split('::')[-1], ours.get(t, {}).get('status', 'absent'),
                                    (ours.get(t, {}).get('msg') or '')[:160])
                  for t in dense if t not in both]
    print('| file | MXNet passes | of those need sparse | symmod passes (non-sparse) | share '
          '| symmod passes (all) |')
    print('|---|---|---|---|---|---|')
    print('\n'.join(rows))
    dense_total = totals[0] - totals[1]
    print('| **total** | **%d** | **%d** | **%d of %d** | **%.0f%%** | **%d** |'
          % (totals[0], totals[1], totals[2], dense_total,
             100.0 * totals[2] / max(dense_total, 1), totals[3]))
    if args.fails:
        print()
        print('\n'.join(fails))


if __name__ == '__main__':
    main()
