"""Text inputs symmod cannot read are MXNetErrors naming the file (issue 11 item 7): image
lists (``.lst``) of ImageIter and ImageRecordIter (and the line; before: ValueError,
OverflowError, FileNotFoundError or an error at the first batch) and CSVIter files (before:
UnicodeDecodeError, a number error without the file)."""
import pathlib

import numpy as np
import pytest
from PIL import Image

import symmod as mx
from symmod.base import MXNetError


def _iterate(tmp_path, text, encoded=None):
    Image.fromarray(np.full((8, 8, 3), 7, np.uint8)).save(str(tmp_path / 'a.png'))
    path = tmp_path / 'images.lst'
    path.write_bytes(encoded if encoded is not None else text.encode())
    it = mx.image.ImageIter(batch_size=1, data_shape=(3, 8, 8), path_imglist=str(path),
                            path_root=str(tmp_path))
    return it.next()


def test_a_good_list_still_reads(tmp_path):
    batch = _iterate(tmp_path, '3\t2.5\ta.png\n')
    assert batch.label[0].asnumpy().tolist() == [2.5]
    assert batch.data[0].shape == (1, 3, 8, 8)


@pytest.mark.parametrize('line, reason', [
    ('0\tx\ta.png', 'could not convert'), ('garbage', 'no label'), ('0\ta.png', 'no label'),
    ('\t\t', 'no label'), ('1.5\t1\ta.png', 'invalid literal'),
    ('9' * 5000 + '\t1\ta.png', 'digits')])
def test_bad_lines_name_the_file_and_line(tmp_path, line, reason):
    with pytest.raises(MXNetError, match=r'images\.lst line 2: expected "index<TAB>label\(s\)'
                                         r'<TAB>file name".*' + reason):
        _iterate(tmp_path, '0\t1\ta.png\n' + line + '\n')


@pytest.mark.parametrize('encoded', [None, b'0\t1\ta\xff.png\n'])
def test_a_missing_or_undecodable_list_is_named(tmp_path, encoded):
    if encoded is None:
        with pytest.raises(MXNetError, match=r'missing\.lst: cannot read the image list'):
            mx.image.ImageIter(batch_size=1, data_shape=(3, 8, 8),
                               path_imglist=str(tmp_path / 'missing.lst'))
    else:
        with pytest.raises(MXNetError, match=r'images\.lst: cannot read the image list'):
            _iterate(tmp_path, None, encoded)


RECORDS = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'recordio' / 'images.rec'


@pytest.mark.parametrize('line, reason', [('0 x 1 a.png', 'could not convert'),
                                          ('nan 1 2 a.png', 'cannot convert float NaN'),
                                          ('inf 1 2 a.png', 'infinity')])
def test_image_record_iter_names_a_bad_list_line(tmp_path, line, reason):
    path = tmp_path / 'labels.lst'
    path.write_text('0 1 2 a.png\n' + line + '\n')
    with pytest.raises(MXNetError, match=r'line 2 of ".*labels\.lst": .*' + reason):
        mx.io.ImageRecordIter(path_imgrec=str(RECORDS), path_imglist=str(path),
                              data_shape=(3, 8, 10), batch_size=2, label_width=2)


@pytest.mark.parametrize('encoded', [None, b'0 1 2 a\xff.png\n'])
def test_image_record_iter_names_a_missing_or_undecodable_list(tmp_path, encoded):
    path = tmp_path / 'labels.lst'
    if encoded is not None:
        path.write_bytes(encoded)
    with pytest.raises(MXNetError, match=r'cannot read the image list ".*labels\.lst"'):
        mx.io.ImageRecordIter(path_imgrec=str(RECORDS), path_imglist=str(path),
                              data_shape=(3, 8, 10), batch_size=2, label_width=2)


@pytest.mark.parametrize('content, message', [
    (b'1,2,3\n\xff\xfe,1,2\n', r'CSVIter: cannot read ".*bad\.csv": .*utf-8'),
    (b'1,2,3\n1,x,3\n', r'CSVIter: cannot parse a number in ".*bad\.csv"')])
def test_csv_errors_name_the_file(tmp_path, content, message):
    path = tmp_path / 'bad.csv'
    path.write_bytes(content)
    with pytest.raises(MXNetError, match=message):
        mx.io.CSVIter(data_csv=str(path), data_shape=(3,), batch_size=1).next()
