"""examples/mnist/train_mnist.py --kv-store dist_sync under a plain ``mpiexec -n 2``:
each worker reads its half of the digits, both run the same number of batches, the log
names each node, rank 0 alone writes checkpoints, and one epoch learns."""
import os
import re
import subprocess
import sys

import mpirun

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..')
EXAMPLE = os.path.join(ROOT, 'examples', 'mnist', 'train_mnist.py')


def test_train_mnist_dist_sync_with_plain_mpiexec(tmp_path):
    mpiexec = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    prefix = tmp_path / 'mlp'
    cmd = [mpiexec, '-n', '2', '--oversubscribe', sys.executable, EXAMPLE,
           '--kv-store', 'dist_sync', '--num-epochs', '1', '--model-prefix', str(prefix)]
    env = mpirun.job_env({'OMPI_ALLOW_RUN_AS_ROOT': '1',
                          'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1'})
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300,
                          start_new_session=True, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-5000:]
    for rank in (0, 1):
        assert 'Node[%d] Resizing training data to 32 batches per machine' % rank in log
        accuracy = re.findall(r'Node\[%d\] Final test accuracy: ([0-9.]+)' % rank, log)
        assert len(accuracy) == 1 and float(accuracy[0]) > 0.8, log[-3000:]
        batches = re.findall(r'Node\[%d\] Epoch\[0\] Batch \[(\d+)-' % rank, log)
        assert batches and int(batches[-1]) <= 32
    assert sorted(os.listdir(tmp_path)) == ['mlp-0001.params', 'mlp-0001.states',
                                            'mlp-symbol.json']
