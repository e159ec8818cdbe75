"""BatchProcessor: what the Estimator does with one batch (split over the contexts,
forward, loss, backward)."""
from ...utils import split_and_load
from .... import autograd

__all__ = ['BatchProcessor']


class BatchProcessor:
    """The default per-batch work of :class:`Estimator`; subclass it (overriding
    ``fit_batch`` / ``evaluate_batch``) to train differently, e.g. with several losses.

    Both methods return ``(data, label, pred, loss)``, lists with one entry per context.
    """

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Predictions and losses of ``estimator.val_net`` / ``val_loss`` on a batch."""
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward under ``autograd.record`` and backward of every loss (the
        GradientUpdateHandler then steps the trainer)."""
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for item in loss:
            item.backward()
        return data, label, pred, loss
