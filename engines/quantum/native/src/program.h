// The compiled program a statevector run executes: a list of passes, each a set of "active"
// qubits gathered into a cache-sized local buffer and the ops applied to it there.
//
// Encoding (built by engines/quantum/statevector/native-plan.ts, read once here):
//   ints:  numPasses, then per pass: a, global qubit of local bit 0..a-1, numOps, then
//          OP_INTS ints per op: type, localMask, outerMask, q0, q1, k, qs[0..MAX_K-1]
//   reals: the ops' numbers, in op order (count fixed by the type; see realsOf).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace lattice {

enum OpType : int32_t {
  kDense1 = 0,     // 2x2 on local q0; controls localMask / outerMask
  kDense2 = 1,     // 4x4 on local (q0 low, q1 high)
  kDenseK = 2,     // 2^k x 2^k on local qs (qs[0] the low matrix bit)
  kPhase = 3,      // multiply by (c + is) where localMask and outerMask bits are all 1
  kDiag1 = 4,      // diag(d0, d1) on local q0 with controls
  kDiag1Outer = 5, // diag(d0, d1) on a non-local qubit (global bit q0): one factor per chunk
  kX = 6,          // Pauli X on local q0 with controls
  kSwap = 7,       // swap local q0, q1 with controls
  kDiagK = 8,      // diagonal on local qs[0..k-1] (qs[0] the low index bit): 2^k factors, with controls
};

constexpr int MAX_K = 6;
constexpr int OP_INTS = 6 + MAX_K;

struct Op {
  int32_t type;
  uint32_t localMask;  // local control bits (for kPhase: the bits that must be 1)
  uint32_t outerMask;  // global control bits outside the local set: the op only runs on chunks that have them
  int32_t q0, q1, k;
  int32_t qs[MAX_K];
  const double* m;     // the op's numbers inside the reals array
};

struct Pass {
  int a;                        // local bits
  std::vector<int> globalOf;    // global qubit of each local bit
  std::vector<Op> ops;
};

inline int realsOf(const Op& op) {
  switch (op.type) {
    case kDense1: return 8;
    case kDense2: return 32;
    case kDenseK: return 2 << (2 * op.k);
    case kPhase: return 2;
    case kDiag1: case kDiag1Outer: return 4;
    case kDiagK: return 2 << op.k;
    default: return 0;
  }
}

// Parses and validates the encoded program against an n-qubit state.
std::vector<Pass> decodeProgram(const int32_t* ints, size_t nInts, const double* reals, size_t nReals, int n);

// Runs every pass over an n-qubit interleaved complex128 (double) or complex64 (float) state
// with `threads` threads. `fromZero`: the state is |0...0>, so chunks that must still be zero
// are skipped.
void runProgram(double* state, int n, const std::vector<Pass>& passes, int threads, bool fromZero);
void runProgram(float* state, int n, const std::vector<Pass>& passes, int threads, bool fromZero);

// Sampling sweep: the same arithmetic, in the same order, as sampleFromState in sampling.ts
// (a complex64 state's numbers are widened to double first).
void sampleSweep(const double* state, uint64_t dim, const double* u, uint32_t shots, double total, uint32_t* out);
void sampleSweep(const float* state, uint64_t dim, const double* u, uint32_t shots, double total, uint32_t* out);

// Probabilities of the 2^m outcomes of `qubits` (bit j of the outcome = qubits[j]).
void marginal(const double* state, uint64_t dim, const int* qubits, int m, double* out);
void marginal(const float* state, uint64_t dim, const int* qubits, int m, double* out);

}  // namespace lattice
