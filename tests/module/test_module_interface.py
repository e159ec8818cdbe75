"""BaseModule declares MXNet's intermediate module API: what a module does not implement
raises NotImplementedError (fit skips its optional checks on that) rather than an
AttributeError."""
import pytest

import symmod as mx


@pytest.mark.parametrize('call', [
    lambda m: m.get_outputs(), lambda m: m.get_input_grads(), lambda m: m.forward(None),
    lambda m: m.backward(), lambda m: m.update(), lambda m: m.update_metric(None, []),
    lambda m: m.bind([]), lambda m: m.init_optimizer(), lambda m: m.init_params(),
    lambda m: m.get_params(), lambda m: m.install_monitor(None), lambda m: m.data_names,
    lambda m: m.output_names, lambda m: m.data_shapes, lambda m: m.label_shapes,
    lambda m: m.output_shapes])
def test_unimplemented_methods_raise_not_implemented(call):
    with pytest.raises(NotImplementedError):
        call(mx.mod.BaseModule())


class _Batch:
    label = None


def test_fit_runs_on_a_module_that_only_overrides_the_steps():
    mod = mx.mod.BaseModule()
    calls = []
    for name in ('bind', 'init_params', 'init_optimizer', 'forward', 'backward', 'update',
                 'update_metric'):
        setattr(mod, name, lambda *a, _n=name, **k: calls.append(_n))
    mod.get_params = lambda: (None, None)
    mod.set_params = lambda *a, **k: None

    class _Data:
        provide_data = provide_label = None

        def __iter__(self):
            return iter([_Batch(), _Batch()])

        def reset(self):
            pass

    mod.fit(_Data(), num_epoch=1)
    assert calls.count('update') == 2
