#!/usr/bin/env python3
"""rng_jump.py -- the polynomial of solver/src/base/rng_jump.c.

xoshiro256's state moves by a linear map T over GF(2)^256.  Its
characteristic polynomial p(x) (degree 256) is found by Berlekamp-Massey
on one bit of the state's sequence; then T^k = r(T) for r(x) = x^k mod p,
and a state s jumps k steps as sum_i r_i T^i s (256 steps of the
generator, the state added wherever r has a one: the form of Vigna's
jump()).  The table holds r for k = 2^0 .. 2^63.  As a check, x^(2^128)
mod p must be Vigna's published JUMP constant.  Prints the C table.
"""
import random

M64 = (1 << 64) - 1


def step(s):
    s = list(s)
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = ((s[3] << 45) | (s[3] >> 19)) & M64
    return s


def berlekamp_massey(seq):
    n = len(seq)
    c, b = [1] + [0] * n, [1] + [0] * n
    L, m = 0, 1
    for i in range(n):
        d = seq[i]
        for j in range(1, L + 1):
            d ^= c[j] & seq[i - j]
        if d == 0:
            m += 1
            continue
        t = c[:]
        for j in range(m, n + 1):
            c[j] ^= b[j - m]
        if 2 * L <= i:
            L, b, m = i + 1 - L, t, 1
        else:
            m += 1
    return c[:L + 1], L


def mulmod(a, b, p, deg):
    r = 0
    while b:
        if b & 1:
            r ^= a
        b >>= 1
        a <<= 1
        if (a >> deg) & 1:
            a ^= p
    return r


def main():
    rnd = random.Random(1)
    s = [rnd.getrandbits(64) for _ in range(4)]
    bits = []
    for _ in range(600):
        bits.append(s[0] & 1)
        s = step(s)
    c, deg = berlekamp_massey(bits)
    assert deg == 256
    p = sum(1 << (deg - j) for j in range(deg + 1) if c[j])
    table, cur = [], 2
    for _ in range(129):
        table.append(cur)
        cur = mulmod(cur, cur, p, deg)
    vigna = [0x180ec6d33cfd0aba, 0xd5a61266f0c9392c, 0xa9582618e03fc9aa, 0x39abdc4529b1661c]
    assert table[128] == sum(w << (64 * k) for k, w in enumerate(vigna))
    words = [(p >> (64 * k)) & M64 for k in range(4)]
    print("static const uint64_t P_LOW[4] = {" +
          ", ".join("0x%016xULL" % w for w in words) + "};")


if __name__ == "__main__":
    main()
