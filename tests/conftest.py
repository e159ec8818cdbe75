"""Test configuration: without an NVIDIA driver, CUDA kernels run in numba's simulator."""
import os
import shutil

if not shutil.which('nvidia-smi'):
    os.environ.setdefault('NUMBA_ENABLE_CUDASIM', '1')

import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _seed_everything():
    """Every test starts from the same random state."""
    np.random.seed(0)
    import symmod
    if hasattr(symmod, 'random'):
        symmod.random.seed(0)
    yield


def pytest_collection_modifyitems(config, items):
    """Tests marked ``slow`` run first (order otherwise kept): under ``-n 2`` a long test
    handed out last would leave one worker running it alone at the end of the suite."""
    items.sort(key=lambda item: item.get_closest_marker('slow') is None)
