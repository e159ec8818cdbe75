"""tools/compat_table.py: the docs/compatibility.md table from harness results."""
import json
import os
import subprocess
import sys

TOOL = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'tools',
                    'compat_table.py')
SOURCE = '''
def test_dense():
    pass

def test_rows():
    x = make(stype='row_sparse')

def test_other():
    pass
'''


def _results(directory, framework, statuses):
    os.makedirs(os.path.join(directory, framework))
    tests = {'test_demo.py::%s' % name: {'status': status, 'msg': msg}
             for name, (status, msg) in statuses.items()}
    with open(os.path.join(directory, framework, 'demo.json'), 'w') as f:
        json.dump({'file': 'demo', 'tests': tests}, f)
    return os.path.join(directory, framework)


def _git(*args, cwd):
    subprocess.run(['git', '-c', 'user.name=t', '-c', 'user.email=t@t', *args], cwd=cwd,
                   check=True, capture_output=True)


def test_table_counts_mxnet_passing_tests_and_marks_sparse_ones_from_the_source(tmp_path):
    repo = tmp_path / 'mirror'
    (repo / 'tests' / 'python' / 'unittest').mkdir(parents=True)
    (repo / 'tests' / 'python' / 'unittest' / 'test_demo.py').write_text(SOURCE)
    _git('init', '-q', cwd=repo)
    _git('add', '.', cwd=repo)
    _git('commit', '-qm', 'tests', cwd=repo)
    _git('tag', '1.9.1', cwd=repo)
    mxnet = _results(str(tmp_path), 'mxnet', {'test_dense': ('passed', None),
                                              'test_rows': ('passed', None),
                                              'test_other': ('failed', 'network')})
    symmod = _results(str(tmp_path), 'symmod', {'test_dense': ('passed', None),
                                                'test_rows': ('failed', 'boom'),
                                                'test_other': ('passed', None)})
    out = subprocess.run([sys.executable, TOOL, '--mxnet', mxnet, '--symmod', symmod,
                          '--files', 'demo', '--mirror', str(repo / '.git'), '--fails'],
                         capture_output=True, text=True, check=True, timeout=60).stdout
    # MXNet passes 2; symmod passes 1 of them; 1 uses sparse; without it 1 of 1; 2 in all
    assert '| demo | 2 | 1 | 50% | 1 | 1 of 1 | 2 |' in out
    assert 'demo test_rows: failed boom' in out
