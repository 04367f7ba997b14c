// Runs a compiled program pass by pass. A pass gathers each chunk of the state (its active
// qubits vary, the others are fixed) into a local buffer that fits in the core's cache,
// applies all the pass's ops there, and writes the chunk back: one trip through memory per
// pass instead of one per gate. Chunks are independent, so threads split them with no
// synchronisation until the pass ends.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>
#include "kernels.h"
#include "lowkernels.h"
#include "program.h"

namespace lattice {

namespace {

struct AlignedFree {
  void operator()(double* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<double, AlignedFree>;

Buffer allocBuffer(uint64_t doubles) {
  void* p = std::aligned_alloc(64, ((doubles * sizeof(double) + 63) / 64) * 64);
  if (!p) throw std::runtime_error("out of memory for a simulation buffer");
  return Buffer(static_cast<double*>(p));
}

// Where each local index lives in a chunk, listed in increasing global offset so that the
// gather and scatter stream through memory. The lowest `run` local bits are the lowest global
// bits in the same order, so blocks of 2^run amplitudes are contiguous on both sides. A
// block's offsets are the sum of a low part (its lowest `loBits` block bits) and a high part:
// two small tables that stay in L1, where one entry per block (up to 2^a of them when the run
// is short) would take as much cache as the chunk itself.
struct Layout {
  int run = 0;
  int loBits = 0;
  std::vector<uint64_t> goffLo, goffHi;  // global offsets (relative to the chunk base), increasing
  std::vector<uint32_t> lidxLo, lidxHi;  // local index of the block's first amplitude
  std::vector<int> rest;                 // global bits outside the pass, ascending
};

// Offsets of every combination of `bits` (global and local bit of each), lowest bit varying fastest.
void offsetTable(const std::vector<std::pair<int, int>>& bits, std::vector<uint64_t>& g, std::vector<uint32_t>& li) {
  const uint64_t size = uint64_t{1} << bits.size();
  g.assign(size, 0);
  li.assign(size, 0);
  // Each entry is an earlier one (its lowest set bit cleared) plus that bit's offset.
  for (uint64_t r = 1; r < size; r++) {
    const int j = __builtin_ctzll(r);
    g[r] = g[r & (r - 1)] | (uint64_t{1} << bits[j].first);
    li[r] = li[r & (r - 1)] | (1u << bits[j].second);
  }
}

void layoutOf(const Pass& p, int n, Layout& l) {
  l.run = 0;
  l.rest.clear();
  while (l.run < p.a && p.globalOf[l.run] == l.run) l.run++;
  const int hi = p.a - l.run;
  std::vector<int> order;  // local bits above the run, sorted by their global qubit
  for (int j = l.run; j < p.a; j++) order.push_back(j);
  std::sort(order.begin(), order.end(), [&](int x, int y) { return p.globalOf[x] < p.globalOf[y]; });
  l.loBits = std::min(hi, 8);
  std::vector<std::pair<int, int>> lo, up;
  for (int j = 0; j < hi; j++) (j < l.loBits ? lo : up).push_back({p.globalOf[order[j]], order[j]});
  offsetTable(lo, l.goffLo, l.lidxLo);
  offsetTable(up, l.goffHi, l.lidxHi);
  uint64_t active = 0;
  for (int q : p.globalOf) active |= uint64_t{1} << q;
  for (int b = 0; b < n; b++) if (!((active >> b) & 1)) l.rest.push_back(b);
}

// The base index of chunk c, where c enumerates the values of the `bits` (ascending).
uint64_t chunkBase(uint64_t c, const std::vector<int>& bits) {
  uint64_t base = 0;
  for (size_t j = 0; j < bits.size(); j++) if ((c >> j) & 1) base |= uint64_t{1} << bits[j];
  return base;
}

template <typename R>
void applyOps(R* re, R* im, const Pass& p, uint64_t base) {
  for (const Op& op : p.ops) {
    if ((base & op.outerMask) != op.outerMask) continue;
    if (lowDenseApplies<R>(p.a, op)) {
      lowDense(re, im, p.a, op);
      continue;
    }
    switch (op.type) {
      case kDense1: dense1(re, im, p.a, op); break;
      case kDense2: dense2(re, im, p.a, op); break;
      case kDenseK: denseK(re, im, p.a, op); break;
      case kPhase: scale(re, im, p.a, op.localMask, op.localMask, op.m[0], op.m[1]); break;
      case kDiag1: diag1(re, im, p.a, op); break;
      case kDiag1Outer: {
        const double* d = op.m + (((base >> op.q0) & 1) ? 2 : 0);
        scale(re, im, p.a, op.localMask, op.localMask, d[0], d[1]);
        break;
      }
      case kX: pauliX(re, im, p.a, op); break;
      case kSwap: swapBits(re, im, p.a, op); break;
      case kDiagK: diagK(re, im, p.a, op); break;
    }
  }
}

// Calls f(global offset, local index) for every block, in increasing global offset.
template <typename F>
inline void forEachBlock(const Layout& l, F&& f) {
  const size_t nlo = l.goffLo.size();
  for (size_t h = 0; h < l.goffHi.size(); h++) {
    const uint64_t g = l.goffHi[h];
    const uint32_t li = l.lidxHi[h];
    for (size_t b = 0; b < nlo; b++) f(g + l.goffLo[b], li + l.lidxLo[b]);
  }
}

template <typename R>
void gather(const R* __restrict s, const Layout& l, R* __restrict re, R* __restrict im) {
  const uint64_t len = uint64_t{1} << l.run;
  if (len == 1) {
    forEachBlock(l, [&](uint64_t g, uint32_t li) {
      re[li] = s[2 * g];
      im[li] = s[2 * g + 1];
    });
    return;
  }
  forEachBlock(l, [&](uint64_t g, uint32_t li) {
    const R* __restrict src = s + 2 * g;
    R* __restrict r = re + li;
    R* __restrict i = im + li;
    for (uint64_t t = 0; t < len; t++) {
      r[t] = src[2 * t];
      i[t] = src[2 * t + 1];
    }
  });
}

template <typename R>
void scatter(R* __restrict s, const Layout& l, const R* __restrict re, const R* __restrict im) {
  const uint64_t len = uint64_t{1} << l.run;
  if (len == 1) {
    forEachBlock(l, [&](uint64_t g, uint32_t li) {
      s[2 * g] = re[li];
      s[2 * g + 1] = im[li];
    });
    return;
  }
  forEachBlock(l, [&](uint64_t g, uint32_t li) {
    R* __restrict dst = s + 2 * g;
    const R* __restrict r = re + li;
    const R* __restrict i = im + li;
    for (uint64_t t = 0; t < len; t++) {
      dst[2 * t] = r[t];
      dst[2 * t + 1] = i[t];
    }
  });
}

// The chunks enumerated by `live` (the inactive bits that may be nonzero), taken one at a time
// from a shared counter: a thread the system pauses (a busy machine) or a slower core holds up
// the pass by one chunk, not by a fixed share of it.
template <typename R>
void runChunks(R* st, const Pass& p, const Layout& l, const std::vector<int>& live, std::atomic<uint64_t>* next, uint64_t chunks, R* re, R* im) {
  for (uint64_t c = next->fetch_add(1, std::memory_order_relaxed); c < chunks; c = next->fetch_add(1, std::memory_order_relaxed)) {
    const uint64_t base = chunkBase(c, live);
    R* s = st + 2 * base;
    gather(s, l, re, im);
    applyOps(re, im, p, base);
    scatter(s, l, re, im);
  }
}

// Buffers and tables outlive the call: fresh ones would fault in page by page on every run.
// They are sized in doubles; a single-precision run uses the same bytes.
std::mutex running;
std::vector<Buffer> buffers;
int bufferBits = 0;
Layout layout;

template <typename R>
R* bufferAs(int j) { return reinterpret_cast<R*>(buffers[j].get()); }

template <typename R>
void runPasses(R* st, int n, const std::vector<Pass>& passes, int threads, bool fromZero);

}  // namespace

std::vector<Pass> decodeProgram(const int32_t* ints, size_t nInts, const double* reals, size_t nReals, int n) {
  size_t i = 0, r = 0;
  auto next = [&]() -> int32_t {
    if (i >= nInts) throw std::runtime_error("truncated statevector program");
    return ints[i++];
  };
  const int numPasses = next();
  std::vector<Pass> passes(numPasses < 0 ? 0 : numPasses);
  for (Pass& p : passes) {
    p.a = next();
    if (p.a < 1 || p.a > n || p.a > 26) throw std::runtime_error("bad local size in statevector program");
    uint64_t seen = 0;
    for (int j = 0; j < p.a; j++) {
      const int q = next();
      if (q < 0 || q >= n || ((seen >> q) & 1)) throw std::runtime_error("bad local qubit in statevector program");
      seen |= uint64_t{1} << q;
      p.globalOf.push_back(q);
    }
    const int numOps = next();
    for (int k = 0; k < numOps; k++) {
      Op op{};
      op.type = next();
      op.localMask = uint32_t(next());
      op.outerMask = uint32_t(next());
      op.q0 = next();
      op.q1 = next();
      op.k = next();
      for (int j = 0; j < MAX_K; j++) op.qs[j] = next();
      if (op.type < kDense1 || op.type > kDiagK) throw std::runtime_error("unknown op in statevector program");
      if ((op.type == kDenseK || op.type == kDiagK) && (op.k < 1 || op.k > MAX_K)) throw std::runtime_error("bad dense op width");
      const uint32_t localAll = p.a >= 32 ? ~0u : ((1u << p.a) - 1);
      const int need = realsOf(op);
      if (r + need > nReals) throw std::runtime_error("truncated statevector program numbers");
      op.m = reals + r;
      r += need;
      if ((op.localMask & ~localAll) != 0 || (op.outerMask & seen) != 0) throw std::runtime_error("bad masks in statevector program");
      auto localOk = [&](int q) { return q >= 0 && q < p.a; };
      if ((op.type == kDense1 || op.type == kDiag1 || op.type == kX) && !localOk(op.q0)) throw std::runtime_error("bad target");
      if ((op.type == kDense2 || op.type == kSwap) && (!localOk(op.q0) || !localOk(op.q1) || op.q0 == op.q1)) throw std::runtime_error("bad targets");
      if (op.type == kDiag1Outer && (op.q0 < 0 || op.q0 >= n || ((seen >> op.q0) & 1))) throw std::runtime_error("bad outer qubit");
      if (op.type == kDenseK || op.type == kDiagK) for (int j = 0; j < op.k; j++) if (!localOk(op.qs[j])) throw std::runtime_error("bad targets");
      // A control on a target bit would send the pair index past the chunk: refuse it.
      uint32_t targets = 0;
      if (op.type == kDense1 || op.type == kDiag1 || op.type == kX) targets = 1u << op.q0;
      if (op.type == kDense2 || op.type == kSwap) targets = (1u << op.q0) | (1u << op.q1);
      if (op.type == kDenseK || op.type == kDiagK) {
        for (int j = 0; j < op.k; j++) {
          if ((targets >> op.qs[j]) & 1u) throw std::runtime_error("repeated target");
          targets |= 1u << op.qs[j];
        }
      }
      if ((targets & op.localMask) != 0) throw std::runtime_error("a control is also a target");
      p.ops.push_back(op);
    }
  }
  return passes;
}

void runProgram(double* st, int n, const std::vector<Pass>& passes, int threads, bool fromZero) {
  runPasses(st, n, passes, threads, fromZero);
}

void runProgram(float* st, int n, const std::vector<Pass>& passes, int threads, bool fromZero) {
  runPasses(st, n, passes, threads, fromZero);
}

namespace {

template <typename R>
void runPasses(R* st, int n, const std::vector<Pass>& passes, int threads, bool fromZero) {
  int maxA = 1;
  for (const Pass& p : passes) maxA = std::max(maxA, p.a);
  threads = std::max(1, threads);
  std::lock_guard<std::mutex> hold(running);
  Layout& l = layout;
  if (bufferBits < maxA) {
    buffers.clear();
    bufferBits = maxA;
  }
  const bool trace = std::getenv("LATTICE_SIM_TRACE") != nullptr;
  // Bits that may be 1 in a nonzero amplitude. From |0...0>, a chunk whose inactive bits
  // include one outside this set is all zeros, and stays so: it is skipped.
  uint64_t support = fromZero ? 0 : ~uint64_t{0};
  for (const Pass& p : passes) {
    const auto started = std::chrono::steady_clock::now();
    layoutOf(p, n, l);
    std::vector<int> live;
    for (int b : l.rest) if ((support >> b) & 1) live.push_back(b);
    const uint64_t chunks = uint64_t{1} << live.size();
    // Below 2^18 amplitudes a pass takes well under a millisecond: starting threads would cost more.
    const int t = n < 18 ? 1 : int(std::min<uint64_t>(uint64_t(threads), chunks));
    while (int(buffers.size()) < 2 * t) buffers.push_back(allocBuffer(uint64_t{1} << bufferBits));
    std::atomic<uint64_t> next{0};
    if (t == 1) {
      runChunks(st, p, l, live, &next, chunks, bufferAs<R>(0), bufferAs<R>(1));
    } else {
      std::vector<std::thread> pool;
      for (int w = 1; w < t; w++) pool.emplace_back(runChunks<R>, st, std::cref(p), std::cref(l), std::cref(live), &next, chunks, bufferAs<R>(2 * w), bufferAs<R>(2 * w + 1));
      runChunks(st, p, l, live, &next, chunks, bufferAs<R>(0), bufferAs<R>(1));
      for (auto& th : pool) th.join();
    }
    for (int q : p.globalOf) support |= uint64_t{1} << q;
    if (trace) {
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      std::fprintf(stderr, "pass: %d active, %zu ops, %llu chunks, run %d, %.1f ms\n", p.a, p.ops.size(), (unsigned long long)chunks, l.run, ms);
    }
  }
}

}  // namespace

}  // namespace lattice
