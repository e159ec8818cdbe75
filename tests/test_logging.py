"""symmod logs only through named loggers: it never configures the root logger (so a
script's later ``logging.basicConfig`` still works), and numba's compiler loggers stay at
WARNING unless the user configured them.

pytest installs its own handlers on the root logger, so each check runs in a fresh
interpreter."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MNIST = os.path.join(ROOT, 'examples', 'mnist', 'data')
RECORDIO = os.path.join(ROOT, 'tests', 'data', 'recordio')


def _run(code, tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get('PYTHONPATH', ''))
    result = subprocess.run([sys.executable, '-c', textwrap.dedent(code)], cwd=str(tmp_path),
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result


# every iterator, module and callback, each made to log what it logs in MXNet
USE_EVERYTHING = '''
import logging, os
import numpy as np
import symmod as mx

rng = np.random.RandomState(0)
x = rng.rand(40, 6).astype(np.float32)
y = (x.sum(axis=1) > 3).astype(np.float32)
np.savetxt('x.csv', x, delimiter=','); np.savetxt('y.csv', y, delimiter=',')
iters = [mx.io.NDArrayIter(x, y, batch_size=8, shuffle=True),
         mx.io.CSVIter(data_csv='x.csv', data_shape=(6,), label_csv='y.csv', batch_size=8),
         mx.io.ResizeIter(mx.io.NDArrayIter(x, y, batch_size=8), 3),
         mx.io.PrefetchingIter(mx.io.NDArrayIter(x, y, batch_size=8)),
         mx.io.MNISTIter(image=os.path.join(MNIST, 't10k-images-idx3-ubyte.gz'),
                         label=os.path.join(MNIST, 't10k-labels-idx1-ubyte.gz'),
                         batch_size=100, flat=True, silent=False),
         mx.io.ImageRecordIter(path_imgrec=os.path.join(RECORDIO, 'images.rec'),
                               data_shape=(3, 8, 10), batch_size=5, verbose=True),
         mx.rnn.BucketSentenceIter([[1, 2, 3], [2, 3, 4, 5]] * 8, 4, buckets=[3, 5])]
for it in iters:
    for _ in it:
        pass

net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc'),
                           name='softmax')
train = mx.io.NDArrayIter(x, y, batch_size=8)
mod = mx.mod.Module(net)
mod.fit(train, train, num_epoch=2, optimizer='sgd',
        optimizer_params={'learning_rate': 0.1,
                          'lr_scheduler': mx.lr_scheduler.FactorScheduler(2, 0.5)},
        initializer=mx.init.Mixed(['.*'], [mx.init.Xavier()]),
        batch_end_callback=[mx.callback.Speedometer(8, 1), mx.callback.ProgressBar(5),
                            mx.callback.log_train_metric(1)],
        epoch_end_callback=mx.callback.do_checkpoint('ck'),
        eval_end_callback=mx.callback.LogValidationMetricsCallback())
mod.save_checkpoint('ck', 3, save_optimizer_states=True)
mx.mod.Module.load('ck', 3, load_optimizer_states=True)
mx.model.load_checkpoint('ck', 3)
mod.score(train, 'acc'); mod.predict(train)
mod.bind(train.provide_data, train.provide_label, force_rebind=True)  # warns
xavier = mx.init.Xavier(); xavier.set_verbosity(True)
xavier(mx.init.InitDesc('fc_weight'), mx.nd.zeros((2, 6)))

seq = mx.mod.SequentialModule()
seq.add(mx.mod.Module(mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=3, name='a'),
                      label_names=None))
seq.add(mx.mod.Module(net), take_labels=True, auto_wiring=True)
train.reset(); seq.fit(train, num_epoch=1)

def sym_gen(key):
    emb = mx.sym.Embedding(mx.sym.var('data'), input_dim=6, output_dim=4, name='embed')
    pred = mx.sym.FullyConnected(mx.sym.Reshape(emb, shape=(-1, 4)), num_hidden=6, name='pred')
    label = mx.sym.Reshape(mx.sym.var('softmax_label'), shape=(-1,))
    return mx.sym.SoftmaxOutput(pred, label, name='softmax'), ('data',), ('softmax_label',)
sentences = mx.rnn.BucketSentenceIter([[1, 2, 3], [2, 3, 4, 5]] * 8, 4, buckets=[3, 5])
bucketing = mx.mod.BucketingModule(sym_gen, default_bucket_key=sentences.default_bucket_key)
bucketing.fit(sentences, num_epoch=1)

mx.model.FeedForward(net, num_epoch=1, numpy_batch_size=8).fit(x, y)
mon = mx.monitor.Monitor(1)
mod.install_monitor(mon)
mon.tic(); mod.forward(next(iter(train)), is_train=False); mon.toc_print()
'''


@pytest.mark.slow
def test_using_iterators_modules_and_callbacks_leaves_the_root_logger_unconfigured(tmp_path):
    result = _run('MNIST, RECORDIO = %r, %r\n' % (MNIST, RECORDIO) + '''
import logging
asked = set()          # every logger asked to log, whatever its level: the names symmod uses
_enabled = logging.Logger.isEnabledFor
def _recording(self, level):
    asked.add(self.name)
    return _enabled(self, level)
logging.Logger.isEnabledFor = _recording
''' + USE_EVERYTHING + '''
root = logging.getLogger()
assert root.handlers == [], root.handlers
assert root.level == logging.WARNING, root.level
assert 'root' not in asked, sorted(asked)
print(sorted(asked))
# a script's own configuration, made now, takes effect: fit's epoch lines appear
logging.basicConfig(level=logging.INFO, format='%(message)s')
train.reset(); mod.fit(train, num_epoch=1, optimizer_params={'learning_rate': 0.1})
''', tmp_path)
    for name in ('symmod.callback', 'symmod.module', 'symmod.io.mnist', 'symmod.model',
                 'symmod.lr_scheduler', 'symmod.monitor', 'symmod.feedforward'):
        assert "'%s'" % name in result.stdout, result.stdout
    # before basicConfig, info lines went nowhere (Python's last-resort handler prints
    # warnings only); after it, the epoch summary of the last fit is printed
    assert result.stderr.count('Epoch[0] Train-accuracy=') == 1, result.stderr


NUMBA_COMPILE = '''
import logging
logging.basicConfig(level=logging.DEBUG, format='%(name)s %(message)s')
{before}
import symmod as mx
import numba

@numba.njit
def fresh(n):          # not cached: compiled now, with numba's loggers in effect
    total = 0
    for i in range(n):
        total += i
    return total

fresh(3)
'''


@pytest.mark.slow
def test_numba_compiler_loggers_stay_quiet_under_a_debug_root(tmp_path):
    result = _run(NUMBA_COMPILE.format(before=''), tmp_path)
    assert 'numba' not in result.stderr, result.stderr[:2000]


@pytest.mark.slow
def test_numba_loggers_configured_by_the_user_are_left_alone(tmp_path):
    result = _run(NUMBA_COMPILE.format(
        before="logging.getLogger('numba').setLevel(logging.DEBUG)"), tmp_path)
    assert 'numba.core' in result.stderr


if __name__ == '__main__':
    sys.exit(pytest.main([__file__]))
