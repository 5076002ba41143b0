#!/usr/bin/env python3
"""make bench-mpi: ircg-mpi on the synthetic instances of make bench-scale
(10M ratings in the shape of MovieLens-10M; 100M in the Netflix prize's
with --sizes 10,100) for N = 1, 2, 4 ranks under mpirun --oversubscribe on
this machine.

Per (size, N), the medians of --reps runs of --iters iterations of IR-CG
(open loop): seconds per iteration after the first (which pays the
warm-up), the peak RSS of every rank, and rank 0's time per iteration in
the sums (ircg_comm) split by --profile-comm into the waits for the other
ranks (a timed barrier before each sum: imbalance and, with more ranks
than cores, the scheduler) and the transfers and additions themselves;
computation is the rest.  Then the cost model's constants (deploy/README.md,
"On a cluster").  The machine is shared: the load average is printed with
the numbers.
"""
import argparse, csv, math, os, re, statistics, subprocess, sys, tempfile, time

SHAPES = {1: (6040, 3952), 10: (69878, 10677), 100: (480189, 17770)}

def spec(millions, iters):
    rows, cols = SHAPES[millions]
    return ('{"problem": {"type": "matrix_completion", "delta": 5, "data": {"source": '
            '"synthetic", "n_rows": %d, "n_cols": %d, "rank": 10, "n_ratings": %d, '
            '"min_rating": 1, "max_rating": 5, "noise": 0.5, "seed": 1}}, '
            '"algorithm": {"name": "ircg", "max_iter": %d}}' % (rows, cols, millions * 10**6, iters))

RANK = re.compile(r'rank (\d+): peak RSS ([\d.]+) MB, cpu ([\d.]+) s, sums ([\d.]+) s, waits ([\d.]+) s')
SUMS = re.compile(r'; (\d+) sums of (\d+) numbers, (\d+) products')

def one_run(args, tmp, millions, n):
    sp = os.path.join(tmp, 'spec.json')
    tr = os.path.join(tmp, 'trace.csv')
    with open(sp, 'w') as f:
        f.write(spec(millions, args.iters))
    cmd = [args.mpirun, '-np', str(n), '--oversubscribe']
    if os.geteuid() == 0:
        cmd.append('--allow-run-as-root')
    cmd += [os.path.join(args.bin, 'ircg-mpi'), sp, '--trace', tr, '--profile-comm']
    env = dict(os.environ, OPENBLAS_NUM_THREADS='1')
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit('ircg-mpi -np %d failed (%d):\n%s' % (n, p.returncode, p.stderr[-3000:]))
    rows = list(csv.DictReader(open(tr)))
    t1, tn = float(rows[0]['elapsed']), float(rows[-1]['elapsed'])
    its = len(rows)
    ranks = [tuple(map(float, m.groups())) for m in RANK.finditer(p.stderr)]
    s = SUMS.search(p.stderr)
    r0 = ranks[0]
    return {'per_iter': (tn - t1) / (its - 1),
            'rss': [r[1] for r in ranks],
            'sums': r0[3] / its, 'waits': r0[4] / its, 'cpu': [r[2] / its for r in ranks],
            'nsums': int(s.group(1)) / its, 'numbers': int(s.group(2)) / its,
            'products': int(s.group(3)) / its}

def median_run(runs):
    keys = ('per_iter', 'sums', 'waits', 'nsums', 'numbers', 'products')
    out = {k: statistics.median(r[k] for r in runs) for k in keys}
    out['rss'] = [statistics.median(r['rss'][i] for r in runs) for i in range(len(runs[0]['rss']))]
    out['cpu'] = [statistics.median(r['cpu'][i] for r in runs) for i in range(len(runs[0]['cpu']))]
    out['spread'] = (max(r['per_iter'] for r in runs) - min(r['per_iter'] for r in runs)) / out['per_iter']
    return out

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default='build/bin')
    ap.add_argument('--mpirun', default='mpirun')
    ap.add_argument('--sizes', default='10')
    ap.add_argument('--ranks', default='1,2,4')
    ap.add_argument('--iters', type=int, default=20)
    ap.add_argument('--reps', type=int, default=3)
    args = ap.parse_args()
    print('# make bench-mpi: %d core(s), load average %s, %d iterations, median of %d runs\n'
          % (os.cpu_count(), ' '.join('%.1f' % x for x in os.getloadavg()), args.iters, args.reps))
    print('| ratings | N | s/iteration (spread) | compute | sums: transfer | sums: waits | '
          'sums/it | numbers/it | products/it | CPU s/it per rank | peak RSS per rank (MB) |')
    print('| --- ' * 11 + '|')
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for m in map(int, args.sizes.split(',')):
            for n in map(int, args.ranks.split(',')):
                r = median_run([one_run(args, tmp, m, n) for _ in range(args.reps)])
                res[(m, n)] = r
                comp = r['per_iter'] - r['sums'] - r['waits']
                print('| %dM | %d | %.4f (%.0f%%) | %.4f | %.4f | %.4f | %.1f | %.0f | %.1f | %s | %s |' % (
                    m, n, r['per_iter'], 100 * r['spread'], comp, r['sums'], r['waits'],
                    r['nsums'], r['numbers'], r['products'],
                    ' '.join('%.3f' % c for c in r['cpu']), ' '.join('%.0f' % x for x in r['rss'])),
                    flush=True)
    print()
    for m in sorted({k[0] for k in res}):
        one = res.get((m, 1))
        if not one:
            continue
        c_omega = one['per_iter'] / (m * 1e6)
        print('%dM: compute constant c_omega = %.3g s per rating per iteration (N = 1)' % (m, c_omega))
        for (mm, n), r in sorted(res.items()):
            if mm == m and n > 1:
                per = r['sums'] / max(r['numbers'], 1)
                print('%dM, N = %d: transfer %.3g s per summed number (loopback, %.1f sums '
                      'of %.0f numbers an iteration), speedup %.2f, RSS ratio %.2f' % (
                          m, n, per, r['nsums'], r['numbers'], one['per_iter'] / r['per_iter'],
                          max(r['rss']) / one['rss'][0]))

if __name__ == '__main__':
    main()
