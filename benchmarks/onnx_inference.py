"""Inference speed: symmod's Module.predict against ONNX Runtime on the exported model.

    python benchmarks/onnx_inference.py [--rounds 5] [--threads 2]

For the MNIST MLP and LeNet of examples/mnist and a conv-BN-ReLU residual net (the one
the ONNX tests prove), at batch 1 and 64: the model is exported once with
``mx.onnx.export_model(..., dynamic=True)`` and both run the same inputs. Reported:
median latency per batch (ms) over the timed calls of the best round, and samples/s.
symmod is timed through ``Module.predict`` on an NDArrayIter (what a user calls) and
through ``Module.forward`` on a prepared batch (the bound graph alone); ONNX Runtime
through ``InferenceSession.run``. The load average is printed before and after: other
processes share the cores, so compare numbers from one run only.
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'examples',
                                'mnist'))
import symmod as mx  # noqa: E402
import symbols  # noqa: E402  (examples/mnist/symbols.py)


def residual_net(num_classes=10):
    """conv-BN-ReLU stem (16 channels), two residual blocks (16, then 32 downsampling)."""
    def conv_bn(x, channels, stride, name, relu=True):
        x = mx.sym.Convolution(x, kernel=(3, 3), stride=(stride, stride), pad=(1, 1),
                               num_filter=channels, no_bias=True, name=name + '_conv')
        x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name=name + '_bn')
        return mx.sym.Activation(x, act_type='relu', name=name + '_relu') if relu else x

    def block(x, channels, stride, name):
        y = conv_bn(conv_bn(x, channels, stride, name + '_a'), channels, 1, name + '_b',
                    relu=False)
        if stride != 1:
            x = conv_bn(x, channels, stride, name + '_proj', relu=False)
        return mx.sym.Activation(y + x, act_type='relu', name=name + '_out')

    x = conv_bn(mx.sym.var('data'), 16, 1, 'stem')
    x = block(block(x, 16, 1, 'res1'), 32, 2, 'res2')
    x = mx.sym.Pooling(x, global_pool=True, pool_type='avg', kernel=(1, 1), name='gap')
    x = mx.sym.FullyConnected(mx.sym.Flatten(x), num_hidden=num_classes, name='fc')
    return mx.sym.SoftmaxOutput(x, name='softmax')


MODELS = [('MLP 784-128-64-10', symbols.mlp), ('LeNet', symbols.lenet),
          ('residual net (3x conv-BN-ReLU blocks)', residual_net)]


def load_average():
    return '%.2f %.2f %.2f' % os.getloadavg()


def median_ms(func, calls):
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return 1000 * float(np.median(times))


def bench_model(name, builder, batches, rounds, threads, folder):
    import onnxruntime as ort
    sym = builder()
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind(data_shapes=[('data', (1, 1, 28, 28))], label_shapes=[('softmax_label', (1,))],
             for_training=False)
    mx.random.seed(0)
    mod.init_params(mx.init.Xavier())
    arg_params, aux_params = mod.get_params()
    path = mx.onnx.export_model(sym, [arg_params, aux_params], [(1, 1, 28, 28)],
                                onnx_file_path=os.path.join(folder, 'model.onnx'),
                                dynamic=True, dynamic_input_shapes=[('batch', 1, 28, 28)])
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=['CPUExecutionProvider'])
    rows = []
    for batch in batches:
        data = np.random.RandomState(batch).rand(batch, 1, 28, 28).astype(np.float32)
        mod = mx.mod.Module(sym, context=mx.cpu())
        mod.bind(data_shapes=[('data', data.shape)],
                 label_shapes=[('softmax_label', (batch,))], for_training=False)
        mod.set_params(arg_params, aux_params)
        iterator = mx.io.NDArrayIter(data, batch_size=batch)
        prepared = mx.io.DataBatch([mx.nd.array(data)])

        def predict():
            iterator.reset()
            return mod.predict(iterator)

        def forward():
            mod.forward(prepared, is_train=False)
            return mod.get_outputs()[0].asnumpy()

        def onnx_run():
            return session.run(None, {'data': data})[0]

        diff = float(np.abs(predict().asnumpy() - onnx_run()).max())
        calls = 200 if batch == 1 else 40
        best = {}
        for _ in range(rounds):
            for label, func in (('predict', predict), ('forward', forward),
                                ('onnxruntime', onnx_run)):
                func()      # warm up
                ms = median_ms(func, calls)
                best[label] = min(best.get(label, ms), ms)
        rows.append((name, batch, best, diff))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--threads', type=int, default=2, help='ONNX Runtime intra-op threads')
    parser.add_argument('--batches', default='1,64')
    args = parser.parse_args(argv)
    import onnx
    import onnxruntime
    batches = [int(b) for b in args.batches.split(',')]
    print('load average at start: %s' % load_average())
    print('python %s, numpy %s, onnx %s, onnxruntime %s, %d cores'
          % (sys.version.split()[0], np.__version__, onnx.__version__, onnxruntime.__version__,
             os.cpu_count()))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, builder in MODELS:
            rows += bench_model(name, builder, batches, args.rounds, args.threads, folder)
    print('load average at end: %s' % load_average())
    print()
    print('| model | batch | symmod predict ms | symmod forward ms | ONNX Runtime ms | '
          'predict samples/s | ORT samples/s | ORT speed-up vs predict | max diff |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name, batch, best, diff in rows:
        print('| %s | %d | %.3f | %.3f | %.3f | %.0f | %.0f | %.2fx | %.1e |'
              % (name, batch, best['predict'], best['forward'], best['onnxruntime'],
                 1000 * batch / best['predict'], 1000 * batch / best['onnxruntime'],
                 best['predict'] / best['onnxruntime'], diff))


if __name__ == '__main__':
    main()
