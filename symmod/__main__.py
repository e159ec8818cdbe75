"""``python -m symmod``: the version, the runtime features, the thread settings in effect
and where the examples, their data and the compiled-kernel cache are."""
import argparse
import os
import sys

_THREAD_VARIABLES = ('OMP_NUM_THREADS', 'NUMBA_NUM_THREADS', 'OPENBLAS_NUM_THREADS',
                     'MKL_NUM_THREADS', 'OMP_WAIT_POLICY', 'GOMP_SPINCOUNT',
                     'MXNET_CPU_WORKER_NTHREADS',
                     'NUMBA_ENABLE_CUDASIM')


def _section(title, rows):
    lines = [title]
    width = max(len(name) for name, _ in rows)
    lines += ['  %-*s  %s' % (width, name, value) for name, value in rows]
    return '\n'.join(lines)


def _features():
    from .runtime import Features
    features = Features()
    enabled = sorted(name for name in features if features.is_enabled(name))
    disabled = sorted(name for name in features if not features.is_enabled(name))
    return [('enabled', ', '.join(enabled)), ('not available', ', '.join(disabled))]


def _threads():
    import numba
    rows = [('CPU cores usable', '%d of %d' % (len(os.sched_getaffinity(0)), os.cpu_count())
             if hasattr(os, 'sched_getaffinity') else str(os.cpu_count())),
            ('numba threads', str(numba.get_num_threads())),
            ('numba threading layer', numba.config.THREADING_LAYER)]
    for name in _THREAD_VARIABLES:
        rows.append((name, os.environ.get(name, '(not set)')))
    return rows


def _where():
    from .progress import kernels_cached
    package = os.path.dirname(os.path.abspath(__file__))
    checkout = os.path.dirname(package)
    rows = [('package', package)]
    examples = os.path.join(checkout, 'examples')
    if os.path.isdir(examples):
        rows += [('examples', examples),
                 ('MNIST example', os.path.join(examples, 'mnist', 'train_mnist.py')),
                 ('MNIST digits', os.path.join(examples, 'mnist', 'data')),
                 ('LSTM example', os.path.join(examples, 'rnn', 'lstm_bucketing.py')),
                 ('LSTM corpus', os.path.join(examples, 'rnn', 'data')),
                 ('benchmarks', os.path.join(checkout, 'benchmarks')),
                 ('design notes', os.path.join(checkout, 'docs', 'design.md'))]
    else:
        rows.append(('examples', 'not installed with the package: they are in the source '
                                 'checkout (examples/, benchmarks/)'))
    rows.append(('compiled kernels', '%s (%s)' % (
        os.environ.get('NUMBA_CACHE_DIR') or 'numba cache in __pycache__ under the package',
        'present' if kernels_cached() else 'empty: the first run compiles them')))
    return rows


def main(argv=None):
    """Print symmod's version, features, thread settings and locations."""
    parser = argparse.ArgumentParser(prog='python -m symmod', description=__doc__)
    parser.parse_args(argv)
    import numpy
    import numba
    from . import __version__
    print('symmod %s (Apache MXNet 1.x API) on Python %s, numpy %s, numba %s'
          % (__version__, sys.version.split()[0], numpy.__version__, numba.__version__))
    print()
    print(_section('runtime features (mx.runtime.Features):', _features()))
    print()
    print(_section('threads:', _threads()))
    print()
    print(_section('where things are:', _where()))
    return 0


if __name__ == '__main__':
    sys.exit(main())
