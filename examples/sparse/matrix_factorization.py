"""Matrix factorization with sparse embeddings (MXNet's example/sparse/matrix_factorization,
for symmod), on synthetic ratings.

Ratings are drawn from hidden low-rank user and item factors plus noise. The model learns
one embedding per user and per item (``Embedding(..., sparse_grad=True)`` on row_sparse
weights) and predicts a rating as their inner product. A batch touches only the rows of
its users and items: Module.fit pulls those rows (``sparse_row_id_fn``), the gradients are
row_sparse and the optimizer updates only those rows (lazy updates).

    python examples/sparse/matrix_factorization.py --num-epochs 5
    python examples/sparse/matrix_factorization.py --optimizer sgd --lr 0.5 --dense
"""
import argparse
import logging
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..'))   # a checkout's symmod, without pip install
import symmod as mx  # noqa: E402  (the example runs from a checkout too)


def synthetic_ratings(num_users, num_items, num_ratings, rank, seed):
    """(users, items, scores): ratings of a random rank-``rank`` model plus noise."""
    rng = np.random.RandomState(seed)
    user_factors = rng.normal(0, 1, (num_users, rank)) / np.sqrt(rank)
    item_factors = rng.normal(0, 1, (num_items, rank))
    users = rng.randint(0, num_users, num_ratings)
    items = rng.randint(0, num_items, num_ratings)
    scores = np.sum(user_factors[users] * item_factors[items], axis=1)
    scores += rng.normal(0, 0.1, num_ratings)
    return users.astype(np.float32), items.astype(np.float32), scores.astype(np.float32)


def matrix_fact_net(factor_size, num_users, num_items, dense):
    """score ~ <user embedding, item embedding> (row_sparse weights unless ``dense``)."""
    stype = 'default' if dense else 'row_sparse'
    user_weight = mx.sym.var('user_weight', stype=stype)
    item_weight = mx.sym.var('item_weight', stype=stype)
    user = mx.sym.Embedding(mx.sym.var('user'), weight=user_weight, input_dim=num_users,
                            output_dim=factor_size, sparse_grad=not dense)
    item = mx.sym.Embedding(mx.sym.var('item'), weight=item_weight, input_dim=num_items,
                            output_dim=factor_size, sparse_grad=not dense)
    pred = mx.sym.sum(user * item, axis=1, keepdims=True)
    return mx.sym.LinearRegressionOutput(pred, mx.sym.var('score'), name='out')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='matrix factorization, sparse embeddings',
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--num-users', type=int, default=5000)
    parser.add_argument('--num-items', type=int, default=3000)
    parser.add_argument('--num-ratings', type=int, default=300000)
    parser.add_argument('--rank', type=int, default=8, help='rank of the hidden ratings')
    parser.add_argument('--factor-size', type=int, default=8)
    parser.add_argument('--num-epochs', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=256)
    parser.add_argument('--optimizer', default='adam', choices=['sgd', 'adam', 'adagrad'])
    parser.add_argument('--lr', type=float, default=0.02)
    parser.add_argument('--dense', action='store_true',
                        help='dense embeddings and updates (to compare)')
    parser.add_argument('--disp-batches', type=int, default=100)
    parser.add_argument('--seed', type=int, default=1)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format='%(asctime)-15s %(message)s')
    logging.info('start with arguments %s', args)
    mx.random.seed(args.seed)
    users, items, scores = synthetic_ratings(args.num_users, args.num_items, args.num_ratings,
                                             args.rank, args.seed)
    split = int(0.9 * len(scores))
    train = mx.io.NDArrayIter({'user': users[:split], 'item': items[:split]},
                              {'score': scores[:split]}, args.batch_size, shuffle=True)
    test = mx.io.NDArrayIter({'user': users[split:], 'item': items[split:]},
                             {'score': scores[split:]}, args.batch_size)
    logging.info('%d ratings (%d for testing); predicting the mean gives test MSE %.4f',
                 len(scores), len(scores) - split,
                 float(np.mean((scores[split:] - scores[:split].mean()) ** 2)))

    def batch_row_ids(batch):
        """The embedding rows a batch needs: its users and items (data order: provide_data)."""
        names = [d.name for d in train.provide_data]
        data = dict(zip(names, batch.data))
        return {'user_weight': data['user'].astype('int64'),
                'item_weight': data['item'].astype('int64')}

    def all_row_ids(_batch):
        return {'user_weight': mx.nd.arange(0, args.num_users, dtype='int64'),
                'item_weight': mx.nd.arange(0, args.num_items, dtype='int64')}

    net = matrix_fact_net(args.factor_size, args.num_users, args.num_items, args.dense)
    mod = mx.mod.Module(net, data_names=[d.name for d in train.provide_data],
                        label_names=['score'])
    mod.fit(train, num_epoch=args.num_epochs, eval_metric='mse', optimizer=args.optimizer,
            optimizer_params={'learning_rate': args.lr, 'rescale_grad': 1.0 / args.batch_size},
            initializer=mx.init.Normal(0.1), sparse_row_id_fn=batch_row_ids,
            batch_end_callback=mx.callback.Speedometer(args.batch_size, args.disp_batches))
    mod.prepare(None, sparse_row_id_fn=all_row_ids)      # every row, to evaluate
    mse = dict(mod.score(test, 'mse'))['mse']
    logging.info('Final test MSE: %.4f', mse)
    return mse


if __name__ == '__main__':
    main()
