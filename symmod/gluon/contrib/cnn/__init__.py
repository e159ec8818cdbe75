"""``mx.gluon.contrib.cnn``: deformable convolution layers."""
from .conv_layers import DeformableConvolution, ModulatedDeformableConvolution

__all__ = ['DeformableConvolution', 'ModulatedDeformableConvolution']
