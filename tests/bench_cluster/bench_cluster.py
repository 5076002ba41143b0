#!/usr/bin/env python3
"""make bench-cluster: ircg-mpi across the hosts of tests/cluster/cluster.sh
(network namespaces on this machine, TCP over veth links to a bridge), and
the cost model of deploy/README.md ("Cost model") fitted to them.

1. One ordered sum (clients/mpi/mpi_comm.c), timed alone by `ircg-mpi
   --bench-sums` on N = 2, 3, 4 hosts for lengths from 1 to 2^20 numbers:
   the model's latency alpha and bandwidth beta fitted to those times
   (least squares on the relative error), with each point's fit error.
2. The synthetic jobs of make bench-mpi (10M ratings in MovieLens-10M's
   shape; 100M in the Netflix prize's with --sizes 10,100) on 1, 2, 3, 4
   hosts (one rank a host; 100M on 1, 2, 4): seconds per iteration after
   the first, split into computation, transfers and waits (a timed barrier
   before each sum, --profile-comm); bytes sent per iteration per rank,
   both the payload the algorithm sends (from rank 0's counts of the sums
   gathered whole and sliced) and what the host's link carried (its eth0
   counters between iterations 2 and last - 1: headers, MPI's own
   messages and acknowledgements included); peak RSS per rank.
3. The model's prediction of each run's seconds per iteration from the
   1-host run's computation (divided by N, but never by more than this
   machine's cores: the hosts share them) and the fitted alpha, beta,
   against the measured: the prediction error for N = 2, 3, 4.
4. 1B ratings on 16 and 64 nodes, from the fitted constants and from a
   data-centre network's, and which terms dominate.

The machine is shared: the load average is printed with the numbers.
Needs root (the hosts); removes them at the end whatever happens.
"""
import argparse, csv, json, math, os, re, statistics, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, '..', 'cluster', 'cluster.sh')
NET = '198.18.29.0/24'
SHAPES = {10: (69878, 10677), 100: (480189, 17770)}
SMALL_LEN = 2048  # clients/mpi/mpi_comm.h: MPI_SUM_SMALL_LEN

RANK = re.compile(r'rank (\d+): peak RSS ([\d.]+) MB, cpu ([\d.]+) s, sums ([\d.]+) s, '
                  r'waits ([\d.]+) s')
SPLIT = re.compile(r'sums gathered whole: (\d+) of (\d+) numbers; sliced: (\d+) of (\d+)')


def sh(*cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)


def host(k):
    return 'ircg-node%d' % k


def mpirun(args, hosts, np, extra):
    """The command line: mpirun on host 1 with the fixture's agent, TCP on the
    test links (as tests/cluster/cluster_util.c's cl_mpirun)."""
    hf = os.path.join(args.tmp, 'hosts-%d' % hosts)
    with open(hf, 'w') as f:
        for k in range(1, hosts + 1):
            f.write('%s slots=1\n' % host(k))
    cmd = [FIXTURE, 'exec', host(1), 'env', 'OPENBLAS_NUM_THREADS=1', 'mpirun',
           '--allow-run-as-root', '-np', str(np), '--hostfile', hf,
           '--mca', 'plm_rsh_agent', FIXTURE + ' agent', '--mca', 'btl', 'tcp,self',
           '--mca', 'btl_tcp_if_include', NET, '--mca', 'oob_tcp_if_include', NET,
           '--mca', 'mpi_yield_when_idle', '1', '--bind-to', 'none', '-x',
           'OPENBLAS_NUM_THREADS']
    return cmd + [os.path.join(args.bin, 'ircg-mpi')] + extra


def tx_bytes(k):
    p = sh('ip', '-n', host(k), '-s', '-j', 'link', 'show', 'eth0')
    return json.loads(p.stdout)[0]['stats64']['tx']['bytes']


# ------------------------------------------------------------ 1. sums --

def bench_sums(args):
    lens = [1, 16, 256, 2048, 4096, 16384, 65536, 262144, 1048576]
    pts = []
    for n in (2, 3, 4):
        p = sh(*mpirun(args, n, n, ['--bench-sums', ','.join(map(str, lens)),
                                    '--bench-reps', str(args.sum_reps)]))
        if p.returncode != 0:
            sys.exit('--bench-sums on %d hosts failed:\n%s' % (n, p.stderr[-3000:]))
        pts += [json.loads(l) for l in p.stdout.splitlines() if l.startswith('{')]
    return pts


def messages(n, length):
    """Messages a rank sends in one sum: the gather sends its numbers to each
    of the others; a sliced sum is two exchanges with each of them."""
    return (n - 1) if length <= SMALL_LEN else 2 * (n - 1)


def payload(n, length):
    """Bytes a rank sends in one sum: its whole vector to each other rank
    (gathered), or (N - 1)/N of it twice (Alltoallv, then Allgatherv)."""
    return 8.0 * length * (n - 1) if length <= SMALL_LEN else 16.0 * length * (n - 1) / n


def fit(pts):
    """alpha, 1/beta of T = alpha m + bytes / beta, least squares on T's
    relative error (rows divided by the measured T)."""
    a11 = a12 = a22 = b1 = b2 = 0.0
    for p in pts:
        t, x1, x2 = p['seconds'], messages(p['ranks'], p['len']), payload(p['ranks'], p['len'])
        x1, x2, y = x1 / t, x2 / t, 1.0
        a11 += x1 * x1; a12 += x1 * x2; a22 += x2 * x2; b1 += x1 * y; b2 += x2 * y
    det = a11 * a22 - a12 * a12
    alpha = (b1 * a22 - b2 * a12) / det
    inv_beta = (a11 * b2 - a12 * b1) / det
    return alpha, inv_beta


def sum_model(alpha, inv_beta, n, length):
    return alpha * messages(n, length) + payload(n, length) * inv_beta


# ------------------------------------------------------------- 2. runs --

def spec(millions, iters):
    rows, cols = SHAPES[millions]
    return ('{"problem": {"type": "matrix_completion", "delta": 5, "data": {"source": '
            '"synthetic", "n_rows": %d, "n_cols": %d, "rank": 10, "n_ratings": %d, '
            '"min_rating": 1, "max_rating": 5, "noise": 0.5, "seed": 1}}, '
            '"algorithm": {"name": "ircg", "max_iter": %d, "certify": false, "threads": 1}}'
            % (rows, cols, millions * 10**6, iters))


def one_run(args, millions, hosts, iters):
    sp = os.path.join(args.tmp, 'spec-%d.json' % millions)
    tr = os.path.join(args.tmp, 'trace.csv')
    with open(sp, 'w') as f:
        f.write(spec(millions, iters))
    cmd = mpirun(args, hosts, hosts, [sp, '--trace', tr, '--profile-comm', '--progress'])
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = []
    reader = threading.Thread(target=lambda: err.append(proc.stderr.read()))
    reader.start()
    marks = {}
    for line in proc.stdout:  # the link counters between rows 2 and iters - 1
        t = json.loads(line).get('t') if line.startswith('{"t"') else None
        if t in (2, iters - 1):
            marks[t] = [tx_bytes(k) for k in range(1, hosts + 1)]
    rc = proc.wait()
    reader.join()
    stderr = err[0] if err else ''
    if rc != 0:
        sys.exit('%dM on %d hosts failed (%d):\n%s' % (millions, hosts, rc, stderr[-3000:]))
    rows = list(csv.DictReader(open(tr)))
    its = len(rows)
    per_iter = (float(rows[-1]['elapsed']) - float(rows[0]['elapsed'])) / (its - 1)
    ranks = [tuple(map(float, m.groups())) for m in RANK.finditer(stderr)]
    split = SPLIT.search(stderr)
    sc, sd, lc, ld = (int(x) / its for x in split.groups())
    wire = [(b - a) / (iters - 3) for a, b in zip(marks[2], marks[iters - 1])] \
        if hosts > 1 else [0.0]
    return {'per_iter': per_iter, 'sums': ranks[0][3] / its, 'waits': ranks[0][4] / its,
            'rss': [r[1] for r in ranks], 'cpu': [r[2] / its for r in ranks],
            'small': (sc, sd), 'sliced': (lc, ld), 'wire': wire}


def median_run(runs):
    out = dict(runs[len(runs) // 2])
    for k in ('per_iter', 'sums', 'waits'):
        out[k] = statistics.median(r[k] for r in runs)
    out['spread'] = (max(r['per_iter'] for r in runs) -
                     min(r['per_iter'] for r in runs)) / out['per_iter']
    return out


def model_bytes(r, n):
    """Payload bytes a rank sends per iteration (the sums' counts)."""
    (sc, sd), (lc, ld) = r['small'], r['sliced']
    if n == 1:
        return 0.0
    return 8.0 * sd * (n - 1) + 16.0 * ld * (n - 1) / n


def model_comm(r, n, alpha, inv_beta):
    (sc, sd), (lc, ld) = r['small'], r['sliced']
    if n == 1:
        return 0.0
    return alpha * (sc * (n - 1) + lc * 2 * (n - 1)) + model_bytes(r, n) * inv_beta


# ---------------------------------------------------------------- main --

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default='build/bin')
    ap.add_argument('--tmp', default='build/bench-cluster')
    ap.add_argument('--sizes', default='10,100')
    ap.add_argument('--iters', default='10:20,100:10', help='SIZE:ITERATIONS,...')
    ap.add_argument('--hosts', default='10:1-2-3-4,100:1-2-4', help='SIZE:N-N-...,...')
    ap.add_argument('--reps', default='10:3,100:1', help='SIZE:RUNS,... (medians)')
    ap.add_argument('--sum-reps', type=int, default=20)
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.tmp = os.path.abspath(args.tmp)
    os.makedirs(args.tmp, exist_ok=True)
    iters = {int(k): int(v) for k, v in (x.split(':') for x in args.iters.split(','))}
    hosts = {int(k): [int(h) for h in v.split('-')] for k, v in
             (x.split(':') for x in args.hosts.split(','))}
    reps = {int(k): int(v) for k, v in (x.split(':') for x in args.reps.split(','))}
    sizes = [int(s) for s in args.sizes.split(',')]
    up = sh(FIXTURE, 'up', '4')
    if up.returncode != 0:
        sys.exit('cluster.sh up 4: %s%s' % (up.stdout, up.stderr))
    try:
        report(args, sizes, iters, hosts, reps)
    finally:
        sh(FIXTURE, 'down')


def report(args, sizes, iters, hosts, reps):
    cores = os.cpu_count()
    print('# make bench-cluster: 4 hosts (network namespaces, veth to a bridge, TCP) on one '
          'machine of %d cores, load average %s\n' %
          (cores, ' '.join('%.1f' % x for x in os.getloadavg())))
    pts = bench_sums(args)
    alpha, inv_beta = fit(pts)
    print('## One ordered sum (median of %d, the slowest rank each)\n' % args.sum_reps)
    print('| N | numbers | measured (s) | model (s) | error |')
    print('| --- | --- | --- | --- | --- |')
    for p in pts:
        m = sum_model(alpha, inv_beta, p['ranks'], p['len'])
        print('| %d | %d | %.3g | %.3g | %+.0f%% |' % (p['ranks'], p['len'], p['seconds'], m,
                                                     100 * (m / p['seconds'] - 1)))
    print('\nfitted: alpha = %.3g s a message, beta = %.3g bytes/s (%.0f MB/s)\n' %
          (alpha, 1 / inv_beta, 1e-6 / inv_beta))
    print('## Jobs (one rank a host, IR-CG without certificates)\n')
    print('| ratings | hosts | s/iteration (spread) | compute | transfer | waits | payload '
          'bytes/it per rank | link bytes/it per host | peak RSS per rank (MB) | predicted '
          's/it (error) | predicted sums vs transfer + waits (error) |')
    print('| --- ' * 11 + '|')
    res = {}
    for m in sizes:
        for n in hosts[m]:
            r = median_run([one_run(args, m, n, iters[m]) for _ in range(reps[m])])
            res[(m, n)] = r
            comp = r['per_iter'] - r['sums'] - r['waits']
            one = res.get((m, 1))
            whole = sums = '-'
            if one and n > 1:
                comm = model_comm(r, n, alpha, inv_beta)
                pred = one['per_iter'] / min(n, cores) + comm
                whole = '%.4f (%+.0f%%)' % (pred, 100 * (pred / r['per_iter'] - 1))
                meas = r['sums'] + r['waits']
                sums = '%.4f vs %.4f (%+.0f%%)' % (comm, meas, 100 * (comm / meas - 1))
            print('| %dM | %d | %.4f (%.0f%%) | %.4f | %.4f | %.4f | %.0f | %s | %s | %s | %s |' % (
                m, n, r['per_iter'], 100 * r['spread'], comp, r['sums'], r['waits'],
                model_bytes(r, n), ' '.join('%.0f' % w for w in r['wire']),
                ' '.join('%.0f' % x for x in r['rss']), whole, sums), flush=True)
    predict_1b(res, alpha, inv_beta)


def predict_1b(res, alpha, inv_beta):
    """1B ratings, p = 100,000 columns, from the 100M run's (else 10M's)
    computation per rating and its sums per iteration, their lengths scaled
    by the columns."""
    m = 100 if (100, 1) in res else 10
    one = res[(m, 1)]
    big = max(n for (mm, n) in res if mm == m)
    r = res[(m, big)]
    cols = SHAPES[m][1]
    c_omega = one['per_iter'] / (m * 1e6)
    scale = 100000 / cols
    r1b = dict(r, small=r['small'], sliced=(r['sliced'][0], r['sliced'][1] * scale))
    nets = [('fitted (this machine\'s veth)', alpha, inv_beta),
            ('10 GbE, TCP (alpha 50 us, beta 1.1 GB/s)', 50e-6, 1 / 1.1e9),
            ('InfiniBand HDR (alpha 2 us, beta 24 GB/s)', 2e-6, 1 / 24e9)]
    print('\n## 1B ratings, p = 100,000 (the %dM run: c_omega = %.3g s per rating per '
          'iteration on one core; %.1f gathered sums of %.0f numbers and %.1f sliced sums of '
          '%.0f numbers per iteration, the latter scaled by 100,000/%d)\n' %
          (m, c_omega, r['small'][0], r['small'][1] / max(r['small'][0], 1), r['sliced'][0],
           r['sliced'][1] * scale / max(r['sliced'][0], 1), cols))
    print('| network | nodes | compute (16 cores at 50%) | latency | bytes | s/iteration | '
          'dominant |')
    print('| --- ' * 7 + '|')
    for name, a, ib in nets:
        for n in (16, 64):
            comp = c_omega * 1e9 / n / 8
            (sc, sd), (lc, ld) = r1b['small'], r1b['sliced']
            lat = a * (sc * (n - 1) + lc * 2 * (n - 1))
            byt = model_bytes(r1b, n) * ib
            terms = {'compute': comp, 'latency': lat, 'bytes': byt}
            dom = max(terms, key=terms.get)
            print('| %s | %d | %.3f | %.3f | %.3f | %.3f | %s |' % (
                name, n, comp, lat, byt, comp + lat + byt, dom))


if __name__ == '__main__':
    main()
