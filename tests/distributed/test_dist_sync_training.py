"""Two dist_sync workers with half of every batch each train exactly like one process
on two CPU contexts with the whole batch: Module.fit (SGD with momentum and weight
decay, Adam, update_on_kvstore True and False), BucketingModule, gluon.Trainer; and a
run resumed from rank 0's mid-run checkpoint continues bit for bit."""
import numpy as np
import pytest

import dist_training as dt
import mpirun


@pytest.fixture(scope='module')
def ranks(tmp_path_factory):
    job = mpirun.run_once(tmp_path_factory, 'training', 'sync_training.py', 2)
    return mpirun.results(job, 2)


@pytest.mark.parametrize('scenario', dt.SCENARIOS)
def test_two_workers_equal_one_process_on_two_contexts(ranks, scenario):
    reference = dt.train(scenario, None, 'local' if 'trainer' not in scenario else 'device')
    for rank in ranks:
        names = [k.split('/', 1)[1] for k in rank if k.startswith(scenario + '/')]
        assert sorted(names) == sorted(reference)
        for name, expected in reference.items():
            np.testing.assert_allclose(rank['%s/%s' % (scenario, name)], expected,
                                       rtol=1e-6, atol=1e-7, err_msg=name)


def test_training_changed_the_parameters(ranks):
    start = dt.module_params(dt.fit_module(None, 'local', 'sgd', epochs=0))
    assert any(not np.allclose(ranks[0]['sgd/' + k], v) for k, v in start.items())


def test_resume_from_rank0_checkpoint_is_exact(ranks):
    for rank in ranks:
        names = [k.split('/', 1)[1] for k in rank if k.startswith('full/')]
        assert names
        for name in names:
            np.testing.assert_array_equal(rank['resumed/' + name], rank['full/' + name])
