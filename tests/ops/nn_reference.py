"""Loader for tests/data/ops_nn_reference.npz: what real MXNet 1.9.1 computed for the
neural-network operators (see tests/data/gen/gen_ops_nn_reference.py).

Each case is replayed through symmod's symbolic API (:func:`recorded_cases.replay`): the
operator is composed on variables, bound with the recorded inputs and auxiliary states,
run forward (in the recorded mode) and backward with the recorded head gradients, and
every output, input gradient and updated auxiliary state is compared with MXNet's.
"""
from recorded_cases import case_names, replay

REFERENCE = 'ops_nn_reference.npz'


def cases(ops):
    """Names of the recorded cases of the operators ``ops``."""
    return case_names(REFERENCE, ops)


def run_case(name, rtol=1e-5, atol=1e-5, outputs=None):
    """Replay case ``name`` and assert symmod matches MXNet; returns the executor.

    ``outputs`` limits the comparison to those output indices (MXNet leaves some
    outputs unwritten, e.g. rrelu's mask in inference).
    """
    return replay(REFERENCE, name, rtol, atol, outputs)
