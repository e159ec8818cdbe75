"""``mx.image``: read, decode, resize, crop, rotate and augment images; ``ImageIter`` batches
them, ``ImageDetIter`` with object boxes (``detection``)."""
from .image import (imread, imdecode, imresize, copyMakeBorder, scale_down, resize_short,
                    fixed_crop, random_crop, center_crop, color_normalize, random_size_crop)
from .augmenters import (Augmenter, SequentialAug, ResizeAug, ForceResizeAug, RandomCropAug,
                         RandomSizedCropAug, CenterCropAug, RandomOrderAug,
                         BrightnessJitterAug, ContrastJitterAug, SaturationJitterAug,
                         HueJitterAug, ColorJitterAug, LightingAug, ColorNormalizeAug,
                         RandomGrayAug, HorizontalFlipAug, CastAug, CreateAugmenter)
from .image_iter import ImageIter
from .rotate import imrotate, random_rotate
from .detection import (DetAugmenter, DetBorrowAug, DetRandomSelectAug, DetHorizontalFlipAug,
                        DetRandomCropAug, DetRandomPadAug, CreateMultiRandCropAugmenter,
                        CreateDetAugmenter, ImageDetIter)
from . import detection
from .opencv import get_max_image_pixels, set_max_image_pixels
