"""symmod.registry: the register / alias / create functions a family of classes shares."""
import warnings

import pytest

import symmod as mx
from symmod.registry import get_alias_func, get_create_func, get_register_func, get_registry


class Shape:
    def __init__(self, size=1, colour='red'):
        self.size, self.colour = size, colour


register = get_register_func(Shape, 'shape')
alias = get_alias_func(Shape, 'shape')
create = get_create_func(Shape, 'shape')


@register
@alias('box', 'cube')
class Square(Shape):
    pass


@register
class Circle(Shape):
    pass


def test_names_are_lower_case_and_aliases_point_to_the_class():
    table = get_registry(Shape)
    assert table == {'square': Square, 'box': Square, 'cube': Square, 'circle': Circle}
    table['triangle'] = Shape            # a copy: the registry itself is unchanged
    assert 'triangle' not in get_registry(Shape)
    for name in ('square', 'SQUARE', 'Box', 'cube'):
        assert type(create(name)) is Square


def test_create_accepts_names_configs_json_and_instances():
    made = create('circle', 3, colour='blue')
    assert (type(made), made.size, made.colour) == (Circle, 3, 'blue')
    made = create({'shape': 'box', 'size': 2})
    assert (type(made), made.size) == (Square, 2)
    made = create(shape='circle', size=4)
    assert (type(made), made.size) == (Circle, 4)
    made = create('["circle", {"size": 5, "colour": "green"}]')
    assert (type(made), made.size, made.colour) == (Circle, 5, 'green')
    made = create('{"shape": "square", "size": 6}')
    assert (type(made), made.size) == (Square, 6)
    assert create(made) is made


def test_create_errors_name_the_family():
    with pytest.raises(AssertionError, match=r'hexagon is not registered\. Please register '
                                             r'with shape\.register first\. Registered shapes: '
                                             r'box, circle, cube, square$'):
        create('hexagon')
    with pytest.raises(AssertionError, match=r"first\. Did you mean 'circle'\? Registered"):
        create('cirle')
    with pytest.raises(AssertionError, match='shape is already an instance'):
        create(Circle(), size=2)
    with pytest.raises(AssertionError, match='shape must be of string type'):
        create(42)
    with pytest.raises(AssertionError):
        create('["circle", {}]', size=2)


def test_register_checks_the_base_class_and_warns_on_override():
    with pytest.raises(AssertionError, match='Can only register subclass of Shape'):
        register(int)

    class Other(Shape):
        pass

    with pytest.warns(UserWarning, match=r'New shape test_registry\.Other registered with name '
                                         r'circle is overriding existing shape '
                                         r'test_registry\.Circle'):
        register(Other, 'circle')
    assert type(create('circle')) is Other
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        register(Circle)                  # put it back for the other tests
    assert type(create('circle')) is Circle


def test_families_are_separate():
    metrics = get_registry(mx.metric.EvalMetric)
    initializers = get_registry(mx.init.Initializer)
    assert metrics['acc'] is mx.metric.Accuracy and 'acc' not in initializers
    assert initializers['zeros'] is mx.init.Zero and 'zeros' not in metrics
    assert 'square' not in metrics and 'square' not in initializers


def test_generated_functions_are_documented():
    assert 'Register a Shape subclass' in register.__doc__
    assert 'registering a Shape subclass under extra names' in alias.__doc__
    assert 'shape : str, dict or Shape' in create.__doc__
