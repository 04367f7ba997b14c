// Kernels on a local buffer in split layout (re[] and im[] separately, 2^a entries each), in
// double or single precision (R); an op's numbers are always double and are rounded to R once.
//
// Every kernel visits only the indices it changes: the touched bits (targets and local
// controls) are fixed and the rest enumerated. Below the lowest touched bit the indices are
// contiguous, so the inner loops run over contiguous runs with no index arithmetic and the
// compiler vectorises them (the planner keeps gate qubits off the lowest local bits).
#pragma once
#include <cstdint>
#include "program.h"

namespace lattice {

// Calls f(base, run) for every contiguous run of indices whose `touched` bits equal `value`.
template <typename F>
inline void forEachRun(int a, uint32_t touched, uint32_t value, F&& f) {
  const uint64_t size = uint64_t{1} << a;
  int pos[32];
  int np = 0;
  for (int b = 0; b < a; b++) if ((touched >> b) & 1u) pos[np++] = b;
  const uint64_t run = np ? (uint64_t{1} << pos[0]) : size;
  const uint64_t count = size >> np;
  for (uint64_t t = 0; t < count; t += run) {
    uint64_t i = t;
    for (int j = 0; j < np; j++) {
      const int b = pos[j];
      i = ((i >> b) << (b + 1)) | (i & ((uint64_t{1} << b) - 1));
    }
    f(i | value, run);
  }
}

template <typename R>
inline void dense1(R* __restrict re, R* __restrict im, int a, const Op& op) {
  const uint64_t s = uint64_t{1} << op.q0;
  const double* m = op.m;
  const R ar = R(m[0]), ai = R(m[1]), br = R(m[2]), bi = R(m[3]), cr = R(m[4]), ci = R(m[5]), dr = R(m[6]), di = R(m[7]);
  forEachRun(a, op.localMask | uint32_t(s), op.localMask, [&](uint64_t b, uint64_t run) {
    R* __restrict r0 = re + b;
    R* __restrict i0 = im + b;
    R* __restrict r1 = re + b + s;
    R* __restrict i1 = im + b + s;
    for (uint64_t j = 0; j < run; j++) {
      const R xr = r0[j], xi = i0[j], yr = r1[j], yi = i1[j];
      r0[j] = ar * xr - ai * xi + br * yr - bi * yi;
      i0[j] = ar * xi + ai * xr + br * yi + bi * yr;
      r1[j] = cr * xr - ci * xi + dr * yr - di * yi;
      i1[j] = cr * xi + ci * xr + dr * yi + di * yr;
    }
  });
}

// One contiguous run of a 4x4: four input streams, four outputs, the matrix in registers.
template <typename R>
inline void dense2Run(R* __restrict r0, R* __restrict i0, R* __restrict r1, R* __restrict i1,
                      R* __restrict r2, R* __restrict i2, R* __restrict r3, R* __restrict i3,
                      const double* __restrict m, uint64_t run) {
  const R a0r = R(m[0]), a0i = R(m[1]), a1r = R(m[2]), a1i = R(m[3]), a2r = R(m[4]), a2i = R(m[5]), a3r = R(m[6]), a3i = R(m[7]);
  const R b0r = R(m[8]), b0i = R(m[9]), b1r = R(m[10]), b1i = R(m[11]), b2r = R(m[12]), b2i = R(m[13]), b3r = R(m[14]), b3i = R(m[15]);
  const R c0r = R(m[16]), c0i = R(m[17]), c1r = R(m[18]), c1i = R(m[19]), c2r = R(m[20]), c2i = R(m[21]), c3r = R(m[22]), c3i = R(m[23]);
  const R d0r = R(m[24]), d0i = R(m[25]), d1r = R(m[26]), d1i = R(m[27]), d2r = R(m[28]), d2i = R(m[29]), d3r = R(m[30]), d3i = R(m[31]);
#pragma GCC ivdep
  for (uint64_t j = 0; j < run; j++) {
    const R x0r = r0[j], x0i = i0[j], x1r = r1[j], x1i = i1[j];
    const R x2r = r2[j], x2i = i2[j], x3r = r3[j], x3i = i3[j];
    r0[j] = a0r * x0r - a0i * x0i + a1r * x1r - a1i * x1i + a2r * x2r - a2i * x2i + a3r * x3r - a3i * x3i;
    i0[j] = a0r * x0i + a0i * x0r + a1r * x1i + a1i * x1r + a2r * x2i + a2i * x2r + a3r * x3i + a3i * x3r;
    r1[j] = b0r * x0r - b0i * x0i + b1r * x1r - b1i * x1i + b2r * x2r - b2i * x2i + b3r * x3r - b3i * x3i;
    i1[j] = b0r * x0i + b0i * x0r + b1r * x1i + b1i * x1r + b2r * x2i + b2i * x2r + b3r * x3i + b3i * x3r;
    r2[j] = c0r * x0r - c0i * x0i + c1r * x1r - c1i * x1i + c2r * x2r - c2i * x2i + c3r * x3r - c3i * x3i;
    i2[j] = c0r * x0i + c0i * x0r + c1r * x1i + c1i * x1r + c2r * x2i + c2i * x2r + c3r * x3i + c3i * x3r;
    r3[j] = d0r * x0r - d0i * x0i + d1r * x1r - d1i * x1i + d2r * x2r - d2i * x2i + d3r * x3r - d3i * x3i;
    i3[j] = d0r * x0i + d0i * x0r + d1r * x1i + d1i * x1r + d2r * x2i + d2i * x2r + d3r * x3i + d3i * x3r;
  }
}

template <typename R>
inline void dense2(R* __restrict re, R* __restrict im, int a, const Op& op) {
  const uint64_t s0 = uint64_t{1} << op.q0, s1 = uint64_t{1} << op.q1;
  forEachRun(a, op.localMask | uint32_t(s0 | s1), op.localMask, [&](uint64_t b, uint64_t run) {
    dense2Run<R>(re + b, im + b, re + b + s0, im + b + s0, re + b + s1, im + b + s1, re + b + s0 + s1, im + b + s0 + s1, op.m, run);
  });
}

template <typename R>
inline void denseK(R* __restrict re, R* __restrict im, int a, const Op& op) {
  const int k = op.k;
  const int dim = 1 << k;
  uint32_t touched = op.localMask;
  uint64_t off[1 << MAX_K];
  for (int x = 0; x < dim; x++) {
    uint64_t o = 0;
    for (int j = 0; j < k; j++) if ((x >> j) & 1) o |= uint64_t{1} << op.qs[j];
    off[x] = o;
  }
  for (int j = 0; j < k; j++) touched |= 1u << op.qs[j];
  constexpr int B = 64 / sizeof(R);  // one cache line of each stream
  R xr[(1 << MAX_K) * B], xi[(1 << MAX_K) * B];
  forEachRun(a, touched, op.localMask, [&](uint64_t b, uint64_t run) {
    for (uint64_t j0 = 0; j0 < run; j0 += B) {
      const int w = int(run - j0 < B ? run - j0 : B);
      for (int c = 0; c < dim; c++)
        for (int t = 0; t < w; t++) {
          xr[c * B + t] = re[b + off[c] + j0 + t];
          xi[c * B + t] = im[b + off[c] + j0 + t];
        }
      for (int row = 0; row < dim; row++) {
        R accr[B] = {0}, acci[B] = {0};
        for (int c = 0; c < dim; c++) {
          const R mr = R(op.m[2 * (row * dim + c)]), mi = R(op.m[2 * (row * dim + c) + 1]);
          for (int t = 0; t < B; t++) {
            accr[t] += mr * xr[c * B + t] - mi * xi[c * B + t];
            acci[t] += mr * xi[c * B + t] + mi * xr[c * B + t];
          }
        }
        for (int t = 0; t < w; t++) {
          re[b + off[row] + j0 + t] = accr[t];
          im[b + off[row] + j0 + t] = acci[t];
        }
      }
    }
  });
}

// Multiply by (c + is) every amplitude whose `touched` bits equal `value`.
template <typename R>
inline void scale(R* __restrict re, R* __restrict im, int a, uint32_t touched, uint32_t value, double cd, double sd) {
  if (cd == 1.0 && sd == 0.0) return;
  const R c = R(cd), s = R(sd);
  forEachRun(a, touched, value, [&](uint64_t b, uint64_t run) {
    R* __restrict r = re + b;
    R* __restrict i = im + b;
    for (uint64_t j = 0; j < run; j++) {
      const R xr = r[j], xi = i[j];
      r[j] = c * xr - s * xi;
      i[j] = c * xi + s * xr;
    }
  });
}

// diag(d0, d1) on local q0, on the amplitudes whose local controls are set.
template <typename R>
inline void diag1(R* __restrict re, R* __restrict im, int a, const Op& op) {
  const uint32_t bit = 1u << op.q0;
  scale(re, im, a, op.localMask | bit, op.localMask, op.m[0], op.m[1]);
  scale(re, im, a, op.localMask | bit, op.localMask | bit, op.m[2], op.m[3]);
}

// A run of diagonal gates fused into one table over k local qubits: each amplitude is
// multiplied once, by the factor its bits select, in one sweep of the chunk. The sweep goes
// by blocks of 16 amplitudes (the lowest 4 local bits): the table bits above them pick one of
// at most 2^k rows of 16 factors prepared beforehand, so the inner loop is a plain vector
// multiply even when the table reads the lowest bits.
template <typename R>
inline void diagK(R* __restrict re, R* __restrict im, int a, const Op& op) {
  if (op.localMask != 0) {
    // Local controls (not produced by the planner, accepted by the format): one sweep per entry.
    uint32_t touched = op.localMask;
    for (int j = 0; j < op.k; j++) touched |= 1u << op.qs[j];
    for (int x = 0; x < (1 << op.k); x++) {
      uint32_t value = op.localMask;
      for (int j = 0; j < op.k; j++) if ((x >> j) & 1) value |= 1u << op.qs[j];
      scale(re, im, a, touched, value, op.m[2 * x], op.m[2 * x + 1]);
    }
    return;
  }
  constexpr int W = 16;
  const int lowBits = a < 4 ? a : 4;
  const uint64_t w = uint64_t{1} << lowBits;
  int hpos[MAX_K], hj[MAX_K], nh = 0;
  for (int j = 0; j < op.k; j++) {
    if (op.qs[j] >= lowBits) {
      hpos[nh] = op.qs[j];
      hj[nh++] = j;
    }
  }
  alignas(64) R fr[(1 << MAX_K) * W], fi[(1 << MAX_K) * W];
  for (int hp = 0; hp < (1 << nh); hp++) {
    for (uint64_t e = 0; e < w; e++) {
      int x = 0;
      for (int h = 0; h < nh; h++) if ((hp >> h) & 1) x |= 1 << hj[h];
      for (int j = 0; j < op.k; j++) if (op.qs[j] < lowBits && ((e >> op.qs[j]) & 1)) x |= 1 << j;
      fr[hp * W + e] = R(op.m[2 * x]);
      fi[hp * W + e] = R(op.m[2 * x + 1]);
    }
  }
  const uint64_t size = uint64_t{1} << a;
  for (uint64_t b = 0; b < size; b += w) {
    int hp = 0;
    for (int h = 0; h < nh; h++) hp |= int((b >> hpos[h]) & 1) << h;
    const R* __restrict cr = fr + hp * W;
    const R* __restrict ci = fi + hp * W;
    R* __restrict r = re + b;
    R* __restrict i = im + b;
    if (w == W) {
      for (int e = 0; e < W; e++) {
        const R xr = r[e], xi = i[e];
        r[e] = cr[e] * xr - ci[e] * xi;
        i[e] = cr[e] * xi + ci[e] * xr;
      }
    } else {
      for (uint64_t e = 0; e < w; e++) {
        const R xr = r[e], xi = i[e];
        r[e] = cr[e] * xr - ci[e] * xi;
        i[e] = cr[e] * xi + ci[e] * xr;
      }
    }
  }
}

// Exchange the amplitudes at offsets `oa` and `ob` from every index whose `touched` bits equal `value`.
template <typename R>
inline void exchange(R* __restrict re, R* __restrict im, int a, uint32_t touched, uint32_t value, uint64_t oa, uint64_t ob) {
  forEachRun(a, touched, value, [&](uint64_t b, uint64_t run) {
    R* __restrict r0 = re + b + oa;
    R* __restrict i0 = im + b + oa;
    R* __restrict r1 = re + b + ob;
    R* __restrict i1 = im + b + ob;
    for (uint64_t j = 0; j < run; j++) {
      const R xr = r0[j], xi = i0[j];
      r0[j] = r1[j];
      i0[j] = i1[j];
      r1[j] = xr;
      i1[j] = xi;
    }
  });
}

// Pauli X on local q0 (with controls): exchange the pairs that differ in q0.
template <typename R>
inline void pauliX(R* re, R* im, int a, const Op& op) {
  const uint64_t s = uint64_t{1} << op.q0;
  exchange(re, im, a, op.localMask | uint32_t(s), op.localMask, 0, s);
}

// Swap local q0 and q1 (with controls): exchange |..1..0..> and |..0..1..>.
template <typename R>
inline void swapBits(R* re, R* im, int a, const Op& op) {
  const uint64_t sa = uint64_t{1} << op.q0, sb = uint64_t{1} << op.q1;
  exchange(re, im, a, op.localMask | uint32_t(sa | sb), op.localMask, sa, sb);
}

}  // namespace lattice
