#!/usr/bin/env python3
"""Print the docs/compatibility.md table from results of the MXNet unit-test harness
(/work/shared/tools/mxnet-tests/run.py): per file, the tests real MXNet 1.9.1 passes, how
many of those symmod passes, and symmod's total.

    python tools/compat_table.py --mxnet <out>/mxnet --symmod <out>/symmod

Each directory holds ``<file>.json`` (and ``<file>.chunk<i>.json`` for a file run in
chunks); chunks are merged. Tests MXNet does not pass (network, timeouts) count for
neither side.
"""
import argparse
import glob
import json
import os


def load(directory):
    """{file: {test id: status}} merged over chunks."""
    results = {}
    for path in sorted(glob.glob(os.path.join(directory, '*.json'))):
        data = json.load(open(path))
        tests = results.setdefault(data['file'], {})
        for nodeid, record in data['tests'].items():
            tests[nodeid] = record['status']
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mxnet', required=True)
    parser.add_argument('--symmod', required=True)
    args = parser.parse_args()
    mxnet, symmod = load(args.mxnet), load(args.symmod)
    rows, tot_m, tot_both, tot_s = [], 0, 0, 0
    for name in sorted(mxnet):
        passing = {t for t, s in mxnet[name].items() if s == 'passed'}
        ours = symmod.get(name, {})
        both = {t for t in passing if ours.get(t) == 'passed'}
        total = sum(1 for s in ours.values() if s == 'passed')
        share = 100.0 * len(both) / len(passing) if passing else 100.0
        rows.append('| %s | %d | %d | %.0f%% | %d |' % (name, len(passing), len(both), share,
                                                       total))
        tot_m += len(passing)
        tot_both += len(both)
        tot_s += total
    print('| file | MXNet passes | symmod passes of those | share | symmod passes (all) |')
    print('|---|---|---|---|---|')
    print('\n'.join(rows))
    print('| **total** | **%d** | **%d** | **%.0f%%** | **%d** |'
          % (tot_m, tot_both, 100.0 * tot_both / max(tot_m, 1), tot_s))


if __name__ == '__main__':
    main()
