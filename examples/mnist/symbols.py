"""The MNIST networks of MXNet's image-classification example: an MLP and LeNet."""
import symmod as mx


def mlp(num_classes=10):
    """784-128-64-10 multilayer perceptron with ReLU."""
    data = mx.sym.Variable('data')
    data = mx.sym.Flatten(data=data)
    fc1 = mx.sym.FullyConnected(data=data, name='fc1', num_hidden=128)
    act1 = mx.sym.Activation(data=fc1, name='relu1', act_type='relu')
    fc2 = mx.sym.FullyConnected(data=act1, name='fc2', num_hidden=64)
    act2 = mx.sym.Activation(data=fc2, name='relu2', act_type='relu')
    fc3 = mx.sym.FullyConnected(data=act2, name='fc3', num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=fc3, name='softmax')


def lenet(num_classes=10):
    """LeCun et al. 1998: conv20-5x5/tanh/maxpool, conv50-5x5/tanh/maxpool, fc500/tanh, fc."""
    data = mx.sym.Variable('data')
    conv1 = mx.sym.Convolution(data=data, kernel=(5, 5), num_filter=20)
    tanh1 = mx.sym.Activation(data=conv1, act_type='tanh')
    pool1 = mx.sym.Pooling(data=tanh1, pool_type='max', kernel=(2, 2), stride=(2, 2))
    conv2 = mx.sym.Convolution(data=pool1, kernel=(5, 5), num_filter=50)
    tanh2 = mx.sym.Activation(data=conv2, act_type='tanh')
    pool2 = mx.sym.Pooling(data=tanh2, pool_type='max', kernel=(2, 2), stride=(2, 2))
    flatten = mx.sym.Flatten(data=pool2)
    fc1 = mx.sym.FullyConnected(data=flatten, num_hidden=500)
    tanh3 = mx.sym.Activation(data=fc1, act_type='tanh')
    fc2 = mx.sym.FullyConnected(data=tanh3, num_hidden=num_classes)
    return mx.sym.SoftmaxOutput(data=fc2, name='softmax')


NETWORKS = {'mlp': mlp, 'lenet': lenet}
