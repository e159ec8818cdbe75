"""python -m symmod.onnx export / check: the migration path in two commands."""
import os
import shutil
import subprocess
import sys

import numpy as np

import symmod as mx
from symmod.onnx.cli import main
from onnx_check import NEWEST, session
from test_onnx_models import MLP_REF, ROOT


def test_export_then_check(tmp_path, capsys):
    prefix = str(MLP_REF / 'mlp')
    out = str(tmp_path / 'mlp.onnx')
    assert main(['export', prefix, '3', '--input-shape', '1,784', '--dynamic', '-o', out,
                 '--opset', str(NEWEST)]) == 0
    assert 'wrote %s' % out in capsys.readouterr().out
    assert session(out).get_inputs()[0].shape == ['batch', 784]
    assert main(['check', out, '--prefix', prefix, '--epoch', '3', '--batch-size', '6']) == 0
    text = capsys.readouterr().out
    assert 'softmax (6, 10): largest absolute difference' in text
    assert text.rstrip().endswith('OK (inputs data(6, 784))')
    # real inputs from a file
    data = tmp_path / 'digits.npy'
    np.save(data, np.load(MLP_REF / 'input.npy'))
    assert main(['check', out, '--prefix', prefix, '--epoch', '3', '--data', str(data)]) == 0
    assert 'inputs data(20, 784)' in capsys.readouterr().out


def test_check_reports_a_mismatch(tmp_path, capsys):
    prefix = str(MLP_REF / 'mlp')
    out = str(tmp_path / 'mlp.onnx')
    assert main(['export', prefix, '3', '--input-shape', '2,784', '-o', out, '--opset',
                 str(NEWEST)]) == 0
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 3)
    arg_params['fc3_weight'] = arg_params['fc3_weight'] * 1.5
    mx.model.save_checkpoint(str(tmp_path / 'changed'), 3, sym, arg_params, aux_params)
    assert main(['check', out, '--prefix', str(tmp_path / 'changed'), '--epoch', '3']) == 1
    assert 'MISMATCH' in capsys.readouterr().out
    assert main(['export', str(tmp_path / 'missing'), '1', '--input-shape', '1,784']) == 2
    assert 'error: Symbol and params files provided are invalid' in capsys.readouterr().err


def test_module_entry_point(tmp_path):
    shutil.copy(MLP_REF / 'mlp-symbol.json', tmp_path / 'net-symbol.json')
    shutil.copy(MLP_REF / 'mlp-0003.params', tmp_path / 'net-0003.params')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, '-m', 'symmod.onnx', 'export',
                             str(tmp_path / 'net'), '3', '--input-shape', '1,784'],
                            capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / 'net.onnx').exists()
