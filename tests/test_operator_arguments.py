"""mx.operator.get_operator_arguments and the names ``from mxnet.operator import *`` hands
out (MXNet's operator module has no __all__). Expected values printed by MXNet 1.9.1's
get_operator_arguments."""
import symmod as mx
from symmod.operator import *     # noqa: F401,F403  (the star import is what is tested)


def test_activation_as_mxnet_reports_it():
    args = mx.operator.get_operator_arguments('Activation')
    assert isinstance(args, mx.operator.OperatorArguments)
    assert args == (2, ['data', 'act_type'], [
        'NDArray-or-Symbol', "{'relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'}, required"])


def test_inputs_then_parameters():
    args = mx.operator.get_operator_arguments('FullyConnected')
    assert args.names == ['data', 'weight', 'bias', 'num_hidden', 'no_bias', 'flatten']
    assert args.types == ['NDArray-or-Symbol'] * 3 + [
        'int, required', 'boolean, optional, default=0', 'boolean, optional, default=1']
    bn = mx.operator.get_operator_arguments('BatchNorm')
    assert bn.names[:5] == ['data', 'gamma', 'beta', 'moving_mean', 'moving_var']
    concat = mx.operator.get_operator_arguments('Concat')
    assert (concat.names, concat.types[0]) == (['data', 'num_args', 'dim'],
                                               'NDArray-or-Symbol[]')
    conv = mx.operator.get_operator_arguments('Convolution')
    assert conv.types[conv.names.index('cudnn_tune')] == \
        "{None, 'fastest', 'limited_workspace', 'off'},optional, default='None'"


def test_star_import_names():
    assert OperatorArguments is mx.operator.OperatorArguments    # noqa: F405
    assert NDArrayHandle is ctypes.c_void_p                      # noqa: F405
    assert NDArray is mx.nd.NDArray                              # noqa: F405
    assert callable(get_operator_arguments)                      # noqa: F405
