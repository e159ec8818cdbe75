"""The registered operators that the ONNX export refuses, each with the reason.

Every operator symmod registers either has a translation (``translations/``, with a
test case in ``tests/onnx/onnx_export_cases.py``) or an entry here saying why ONNX
cannot express it faithfully; ``tests/onnx/test_onnx_export_coverage.py`` checks that
against the operator registry. The reason is part of the error a user sees when a
graph holds such a node.
"""
__all__ = ['NOT_EXPRESSIBLE', 'reason']

_UPDATE_IN_PLACE = (
    'an optimizer step that updates its optimizer states (%s) in place as a side '
    'effect; an ONNX graph is a pure function of its inputs and cannot write them back, '
    'so an exported graph would not do what the operator does')

_STATES = {
    'sgd_mom_update': 'mom', 'mp_sgd_update': 'weight32', 'mp_sgd_mom_update': 'mom, weight32',
    'nag_mom_update': 'mom', 'mp_nag_mom_update': 'mom, weight32',
    'adam_update': 'mean, var', 'rmsprop_update': 'n', 'rmspropalex_update': 'n, g, delta',
    'ftrl_update': 'z, n', 'ftml_update': 'd, v, z', 'signum_update': 'mom',
    'lamb_update_phase1': 'mean, var', 'mp_lamb_update_phase1': 'mean, var, weight32',
    'multi_sgd_mom_update': 'the moms', 'multi_mp_sgd_update': 'the float32 weights',
    'multi_mp_sgd_mom_update': 'the moms and float32 weights',
    'preloaded_multi_sgd_mom_update': 'the moms',
    'preloaded_multi_mp_sgd_update': 'the float32 weights',
    'preloaded_multi_mp_sgd_mom_update': 'the moms and float32 weights',
}

_NO_SAMPLER = (
    'draws from a %s distribution: ONNX samples only uniform, normal, Bernoulli and '
    'multinomial variates, and this distribution has no exact transform of those (it '
    'needs rejection sampling, a data-dependent loop; an ONNX Loop drawing until every '
    'element is accepted could run it, a translation this exporter does not write)')

NOT_EXPRESSIBLE = {
    'Custom': 'runs a Python CustomOp (mx.operator.CustomOp) that only the Python '
              'process defining it can execute; an ONNX graph holds ONNX operators only',
    '_contrib_boolean_mask': (
        "its output length is the number of non-zero mask values; symmod's executor "
        'cannot bind it inside a Symbol (simple_bind cannot infer that shape), so there '
        'is no symbolic model holding it to export (ONNX Compress could express the '
        'operation itself)'),
    '_contrib_getnnz': (
        'counts the stored values of a csr array: ONNX tensors are dense, with no storage '
        'type, and in a symbolic graph symmod hands it a dense array, on which it raises'),
    '_sample_unique_zipfian': (
        'draws unique log-uniform classes by rejection until num_sampled distinct ones '
        'are found (a data-dependent loop); ONNX has no such sampler (an ONNX Loop '
        'could run the rejection, a translation this exporter does not write)'),
    '_random_gamma': _NO_SAMPLER % 'gamma',
    '_random_gamma_like': _NO_SAMPLER % 'gamma',
    '_sample_gamma': _NO_SAMPLER % 'gamma',
    '_random_poisson': _NO_SAMPLER % 'Poisson',
    '_random_poisson_like': _NO_SAMPLER % 'Poisson',
    '_sample_poisson': _NO_SAMPLER % 'Poisson',
    '_random_negative_binomial': _NO_SAMPLER % 'negative binomial',
    '_random_negative_binomial_like': _NO_SAMPLER % 'negative binomial',
    '_sample_negative_binomial': _NO_SAMPLER % 'negative binomial',
    '_random_generalized_negative_binomial': _NO_SAMPLER % 'generalized negative binomial',
    '_random_generalized_negative_binomial_like':
        _NO_SAMPLER % 'generalized negative binomial',
    '_sample_generalized_negative_binomial': _NO_SAMPLER % 'generalized negative binomial',
}
NOT_EXPRESSIBLE.update({name: _UPDATE_IN_PLACE % states for name, states in _STATES.items()})


def reason(op_name):
    """Why ``op_name`` cannot be exported, or None when it is not in the table."""
    return NOT_EXPRESSIBLE.get(op_name)
