// Sampling from a state too large for JavaScript to hold. The arithmetic and its order are
// those of sampleFromState (engines/quantum/sampling.ts), so a seed gives the same shots
// whichever side sweeps the state.
#include "program.h"

namespace lattice {

namespace {

template <typename R>
__attribute__((optimize("fp-contract=off"))) void sweep(const R* st, uint64_t dim, const double* u, uint32_t shots, double total, uint32_t* out) {
  if (shots == 0) return;
  double norm = 0;
  for (uint64_t i = 0; i < 2 * dim; i++) norm += double(st[i]) * double(st[i]);
  uint32_t s = 0;
  double cum = 0;
  uint64_t last = 0;
  for (uint64_t i = 0; i < dim && s < shots; i++) {
    const double re = st[2 * i], im = st[2 * i + 1];
    const double p = re * re + im * im;
    if (p == 0) continue;
    last = i;
    cum += p / norm;
    while (s < shots && u[s] / total < cum) out[s++] = uint32_t(i);
  }
  while (s < shots) out[s++] = uint32_t(last);
}

template <typename R>
__attribute__((optimize("fp-contract=off"))) void marginalOf(const R* st, uint64_t dim, const int* qubits, int m, double* out) {
  for (uint64_t x = 0; x < (uint64_t{1} << m); x++) out[x] = 0;
  for (uint64_t i = 0; i < dim; i++) {
    uint64_t x = 0;
    for (int j = 0; j < m; j++) x |= ((i >> qubits[j]) & 1) << j;
    const double re = st[2 * i], im = st[2 * i + 1];
    out[x] += re * re + im * im;
  }
}

}  // namespace

void sampleSweep(const double* st, uint64_t dim, const double* u, uint32_t shots, double total, uint32_t* out) { sweep(st, dim, u, shots, total, out); }
void sampleSweep(const float* st, uint64_t dim, const double* u, uint32_t shots, double total, uint32_t* out) { sweep(st, dim, u, shots, total, out); }
void marginal(const double* st, uint64_t dim, const int* qubits, int m, double* out) { marginalOf(st, dim, qubits, m, out); }
void marginal(const float* st, uint64_t dim, const int* qubits, int m, double* out) { marginalOf(st, dim, qubits, m, out); }

}  // namespace lattice
