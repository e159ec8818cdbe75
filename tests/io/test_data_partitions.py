"""Data split between the workers of a distributed job: CSVIter's num_parts/part_index
and gluon's SplitSampler give every worker its own rows, all rows once in total."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError


@pytest.fixture
def csv(tmp_path):
    rows = np.arange(11 * 2).reshape(11, 2)
    (tmp_path / 'data.csv').write_text(''.join('%d,%d\n' % tuple(r) for r in rows))
    (tmp_path / 'label.csv').write_text(''.join('%d\n' % r[0] for r in rows))
    return tmp_path


def _rows(it):
    seen = []
    for batch in it:
        data = batch.data[0].asnumpy()
        seen.extend(data[:len(data) - batch.pad, 0].astype(int).tolist())
    return seen


@pytest.mark.parametrize('parts', [1, 2, 3, 4])
def test_csv_parts_cover_every_row_once(csv, parts):
    seen = []
    for index in range(parts):
        it = mx.io.CSVIter(data_csv=str(csv / 'data.csv'), data_shape=(2,),
                           label_csv=str(csv / 'label.csv'), batch_size=2,
                           round_batch=False, num_parts=parts, part_index=index)
        mine = _rows(it)
        start, end = int(11 / parts * index), int(11 / parts * (index + 1))
        assert mine == list(range(2 * start, 2 * end, 2))     # contiguous, MNISTIter's split
        for batch in mx.io.CSVIter(data_csv=str(csv / 'data.csv'), data_shape=(2,),
                                   label_csv=str(csv / 'label.csv'), batch_size=2,
                                   num_parts=parts, part_index=index):
            np.testing.assert_array_equal(batch.label[0].asnumpy(), batch.data[0].asnumpy()[:, 0])
        seen += mine
    assert seen == list(range(0, 22, 2))


@pytest.mark.parametrize('kwargs', [{'num_parts': 0}, {'num_parts': 2, 'part_index': 2},
                                    {'num_parts': 2, 'part_index': -1}])
def test_csv_bad_part(csv, kwargs):
    with pytest.raises(MXNetError, match='part_index must be in'):
        mx.io.CSVIter(data_csv=str(csv / 'data.csv'), data_shape=(2,), batch_size=2,
                      **kwargs)


def test_split_sampler_parts_are_disjoint_equal_and_shuffled():
    parts = [list(mx.gluon.data.SplitSampler(10, 3, i)) for i in range(3)]
    assert [len(p) for p in parts] == [3, 3, 3]
    assert [sorted(p) for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    np.random.seed(1)
    orders = {tuple(mx.gluon.data.SplitSampler(100, 2, 1)) for _ in range(3)}
    assert len(orders) == 3 and all(sorted(o) == list(range(50, 100)) for o in orders)
    assert list(mx.gluon.data.SplitSampler(5, 2, 1, shuffle=False)) == [2, 3]
    assert len(mx.gluon.data.SplitSampler(5, 2, 1)) == 2


def test_split_sampler_feeds_a_dataloader():
    data = mx.gluon.data.ArrayDataset(np.arange(8, dtype=np.float32))
    loader = mx.gluon.data.DataLoader(data, batch_size=2,
                                      sampler=mx.gluon.data.SplitSampler(8, 2, 1,
                                                                         shuffle=False))
    assert [b.asnumpy().tolist() for b in loader] == [[4, 5], [6, 7]]


def test_split_sampler_bad_part():
    with pytest.raises(ValueError, match='part_index must be in'):
        mx.gluon.data.SplitSampler(10, 2, 2)
