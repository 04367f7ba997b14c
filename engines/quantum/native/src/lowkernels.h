// Dense gates whose targets include the lowest local bits, applied inside vector registers.
//
// The planner keeps the lowest global qubits (as many as one 64-byte vector holds amplitudes:
// 3 in double, 4 in single) in local bits 0..L-1 of every pass, so that a chunk's gather and
// scatter always move contiguous blocks of at least one vector. A gate on one of those bits
// pairs amplitudes inside one vector; the plain kernels would then loop over runs of 1 to 8
// amplitudes with no vectorisation. Here a block of W = 2^L amplitudes is one vector: each
// input the gate reads for a lane is a fixed lane permutation of one loaded vector, and each
// (output, input) pair has its own per-lane coefficient vector prepared once per op, so the
// inner loop is loads, permutes and fused multiply-adds (as qsim's low-qubit kernels do).
// Without AVX-512 the same tables drive a plain loop over the lanes.
#pragma once
#include <cstdint>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include "kernels.h"
#include "program.h"

namespace lattice {

// Amplitudes in one 64-byte vector, and its log2.
template <typename R>
constexpr int lanesOf() { return int(64 / sizeof(R)); }
template <typename R>
constexpr int laneBitsOf() { return sizeof(R) == 4 ? 4 : 3; }

// Widest op the in-register path takes: the fused circuits it serves have 1- and 2-qubit ops;
// a wider op keeps the general kernel.
constexpr int LOW_MAX_K = 3;

template <typename R>
struct LowTables {
  static constexpr int W = lanesOf<R>();
  int nh = 0, nl = 0;
  uint64_t offH[1 << LOW_MAX_K];  // offset of each combination of the high targets
  int32_t perm[1 << LOW_MAX_K][W];  // lane source of each low-target input pattern
  // coef[(rh * 2^nh + h) * 2^nl + xl][lane]: the matrix entry lane's output row (high part rh)
  // takes from input (high part h, low part xl).
  alignas(64) R cr[1 << (2 * LOW_MAX_K)][W];
  alignas(64) R ci[1 << (2 * LOW_MAX_K)][W];
};

// The op's targets, matrix bit j first.
inline int targetsOf(const Op& op, int* qs) {
  if (op.type == kDense1) {
    qs[0] = op.q0;
    return 1;
  }
  if (op.type == kDense2) {
    qs[0] = op.q0;
    qs[1] = op.q1;
    return 2;
  }
  for (int j = 0; j < op.k; j++) qs[j] = op.qs[j];
  return op.k;
}

// Whether the in-register kernel applies: a dense op of at most LOW_MAX_K targets, one at least
// below the vector's lane bits, and no local control among those bits (a control must hold for
// a whole vector).
template <typename R>
inline bool lowDenseApplies(int a, const Op& op) {
  if (op.type != kDense1 && op.type != kDense2 && op.type != kDenseK) return false;
  constexpr int L = laneBitsOf<R>();
  if (a < L) return false;
  int qs[MAX_K];
  const int k = targetsOf(op, qs);
  if (k > LOW_MAX_K) return false;
  const uint32_t lowMask = (1u << L) - 1;
  if (op.localMask & lowMask) return false;
  for (int j = 0; j < k; j++) if (qs[j] < L) return true;
  return false;
}

template <typename R>
inline void lowTablesOf(const Op& op, LowTables<R>& t) {
  constexpr int L = laneBitsOf<R>();
  constexpr int W = lanesOf<R>();
  int qs[MAX_K];
  const int k = targetsOf(op, qs);
  const int dim = 1 << k;
  int hj[LOW_MAX_K], lj[LOW_MAX_K];
  t.nh = t.nl = 0;
  uint32_t lowTargets = 0;
  for (int j = 0; j < k; j++) {
    if (qs[j] < L) {
      lj[t.nl++] = j;
      lowTargets |= 1u << qs[j];
    } else {
      hj[t.nh++] = j;
    }
  }
  for (int h = 0; h < (1 << t.nh); h++) {
    uint64_t o = 0;
    for (int b = 0; b < t.nh; b++) if ((h >> b) & 1) o |= uint64_t{1} << qs[hj[b]];
    t.offH[h] = o;
  }
  for (int xl = 0; xl < (1 << t.nl); xl++) {
    uint32_t set = 0;
    for (int b = 0; b < t.nl; b++) if ((xl >> b) & 1) set |= 1u << qs[lj[b]];
    for (int lane = 0; lane < W; lane++) t.perm[xl][lane] = int32_t((uint32_t(lane) & ~lowTargets) | set);
  }
  for (int rh = 0; rh < (1 << t.nh); rh++) {
    for (int h = 0; h < (1 << t.nh); h++) {
      for (int xl = 0; xl < (1 << t.nl); xl++) {
        int col = 0;
        for (int b = 0; b < t.nh; b++) if ((h >> b) & 1) col |= 1 << hj[b];
        for (int b = 0; b < t.nl; b++) if ((xl >> b) & 1) col |= 1 << lj[b];
        const int e = (rh * (1 << t.nh) + h) * (1 << t.nl) + xl;
        for (int lane = 0; lane < W; lane++) {
          int row = 0;
          for (int b = 0; b < t.nh; b++) if ((rh >> b) & 1) row |= 1 << hj[b];
          for (int b = 0; b < t.nl; b++) if ((lane >> qs[lj[b]]) & 1) row |= 1 << lj[b];
          t.cr[e][lane] = R(op.m[2 * (row * dim + col)]);
          t.ci[e][lane] = R(op.m[2 * (row * dim + col) + 1]);
        }
      }
    }
  }
}

#if defined(__AVX512F__)
inline __m512 vload(const float* p) { return _mm512_loadu_ps(p); }
inline __m512d vload(const double* p) { return _mm512_loadu_pd(p); }
inline void vstore(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
inline void vstore(double* p, __m512d v) { _mm512_storeu_pd(p, v); }
inline __m512 vfmadd(__m512 a, __m512 b, __m512 c) { return _mm512_fmadd_ps(a, b, c); }
inline __m512d vfmadd(__m512d a, __m512d b, __m512d c) { return _mm512_fmadd_pd(a, b, c); }
inline __m512 vfnmadd(__m512 a, __m512 b, __m512 c) { return _mm512_fnmadd_ps(a, b, c); }
inline __m512d vfnmadd(__m512d a, __m512d b, __m512d c) { return _mm512_fnmadd_pd(a, b, c); }
inline __m512 vzero(float) { return _mm512_setzero_ps(); }
inline __m512d vzero(double) { return _mm512_setzero_pd(); }

template <typename R>
struct Vec;
template <>
struct Vec<float> {
  using T = __m512;
  using I = __m512i;
  static I index(const int32_t* p) { return _mm512_loadu_si512(p); }
  static T permute(I idx, T v) { return _mm512_permutexvar_ps(idx, v); }
};
template <>
struct Vec<double> {
  using T = __m512d;
  using I = __m512i;
  static I index(const int32_t* p) { return _mm512_cvtepi32_epi64(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))); }
  static T permute(I idx, T v) { return _mm512_permutexvar_pd(idx, v); }
};

// One vector block starting at index `at`: nH high-target combinations, nL low-target
// patterns. Always inlined: called with constant sizes (the shapes fused circuits produce), the
// compiler unrolls it and keeps the inputs and sums in registers; with run-time sizes otherwise.
template <typename R>
__attribute__((always_inline)) inline void lowBlock(R* __restrict re, R* __restrict im, uint64_t at, const LowTables<R>& t,
                                                    const typename Vec<R>::I* idx, int nH, int nL) {
  using V = Vec<R>;
  typename V::T pr[1 << LOW_MAX_K], pi[1 << LOW_MAX_K];  // every input vector, permuted per low pattern
  for (int h = 0; h < nH; h++) {
    const typename V::T xr = vload(re + at + t.offH[h]), xi = vload(im + at + t.offH[h]);
    for (int xl = 0; xl < nL; xl++) {
      pr[h * nL + xl] = V::permute(idx[xl], xr);
      pi[h * nL + xl] = V::permute(idx[xl], xi);
    }
  }
  for (int rh = 0; rh < nH; rh++) {
    typename V::T ar = vzero(R{}), ai = vzero(R{});
    for (int c = 0; c < nH * nL; c++) {
      const typename V::T mr = vload(t.cr[rh * nH * nL + c]), mi = vload(t.ci[rh * nH * nL + c]);
      ar = vfmadd(mr, pr[c], ar);
      ar = vfnmadd(mi, pi[c], ar);
      ai = vfmadd(mr, pi[c], ai);
      ai = vfmadd(mi, pr[c], ai);
    }
    vstore(re + at + t.offH[rh], ar);
    vstore(im + at + t.offH[rh], ai);
  }
}

template <typename R, typename F>
inline void lowSweep(int a, uint32_t touched, uint32_t value, F&& block) {
  constexpr int W = lanesOf<R>();
  forEachRun(a, touched, value, [&](uint64_t b, uint64_t run) {
    for (uint64_t j = 0; j < run; j += W) block(b + j);
  });
}
#endif

// Applies the op to every vector block; blocks enumerated like the plain kernels' runs (the
// high targets and controls at their pattern).
template <typename R>
inline void lowDense(R* __restrict re, R* __restrict im, int a, const Op& op) {
  constexpr int W = lanesOf<R>();
  LowTables<R> t;
  lowTablesOf(op, t);
  const int nH = 1 << t.nh, nL = 1 << t.nl;
  uint32_t touched = op.localMask;
  for (int h = 0; h < t.nh; h++) touched |= uint32_t(t.offH[uint64_t{1} << h]);
#if defined(__AVX512F__)
  using V = Vec<R>;
  typename V::I idx[1 << LOW_MAX_K];
  for (int xl = 0; xl < nL; xl++) idx[xl] = V::index(t.perm[xl]);
  const uint32_t value = op.localMask;
  // The shapes fused circuits produce: a 2x2 on a low bit, a 4x4 on one or two low bits.
  if (t.nh == 0 && t.nl == 1) return lowSweep<R>(a, touched, value, [&](uint64_t at) { lowBlock<R>(re, im, at, t, idx, 1, 2); });
  if (t.nh == 1 && t.nl == 1) return lowSweep<R>(a, touched, value, [&](uint64_t at) { lowBlock<R>(re, im, at, t, idx, 2, 2); });
  if (t.nh == 0 && t.nl == 2) return lowSweep<R>(a, touched, value, [&](uint64_t at) { lowBlock<R>(re, im, at, t, idx, 1, 4); });
  lowSweep<R>(a, touched, value, [&](uint64_t at) { lowBlock<R>(re, im, at, t, idx, nH, nL); });
#else
  forEachRun(a, touched, op.localMask, [&](uint64_t b, uint64_t run) {
    for (uint64_t j = 0; j < run; j += W) {
      R xr[1 << LOW_MAX_K][W], xi[1 << LOW_MAX_K][W];
      for (int h = 0; h < nH; h++)
        for (int lane = 0; lane < W; lane++) {
          xr[h][lane] = re[b + t.offH[h] + j + lane];
          xi[h][lane] = im[b + t.offH[h] + j + lane];
        }
      for (int rh = 0; rh < nH; rh++) {
        R ar[W] = {0}, ai[W] = {0};
        for (int h = 0; h < nH; h++)
          for (int xl = 0; xl < nL; xl++) {
            const R* __restrict mr = t.cr[(rh * nH + h) * nL + xl];
            const R* __restrict mi = t.ci[(rh * nH + h) * nL + xl];
            for (int lane = 0; lane < W; lane++) {
              const R vr = xr[h][t.perm[xl][lane]], vi = xi[h][t.perm[xl][lane]];
              ar[lane] += mr[lane] * vr - mi[lane] * vi;
              ai[lane] += mr[lane] * vi + mi[lane] * vr;
            }
          }
        for (int lane = 0; lane < W; lane++) {
          re[b + t.offH[rh] + j + lane] = ar[lane];
          im[b + t.offH[rh] + j + lane] = ai[lane];
        }
      }
    }
  });
#endif
}

}  // namespace lattice
