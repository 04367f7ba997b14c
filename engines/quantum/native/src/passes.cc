// Runs a compiled program pass by pass. A pass gathers each chunk of the state (its active
// qubits vary, the others are fixed) into a local buffer that fits in the core's cache,
// applies all the pass's ops there, and writes the chunk back: one trip through memory per
// pass instead of one per gate. Chunks are independent, so threads split them with no
// synchronisation until the pass ends.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include "kernels.h"
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
// gather and scatter stream through memory.
struct Layout {
  std::vector<uint64_t> goff;  // global offset (relative to the chunk base), increasing
  std::vector<uint32_t> lidx;  // the local index stored at that offset
  std::vector<int> rest;       // global bits outside the pass, ascending
};

Layout layoutOf(const Pass& p, int n) {
  Layout l;
  const uint64_t size = uint64_t{1} << p.a;
  std::vector<int> order(p.a);  // local bits sorted by their global qubit
  for (int j = 0; j < p.a; j++) order[j] = j;
  std::sort(order.begin(), order.end(), [&](int x, int y) { return p.globalOf[x] < p.globalOf[y]; });
  l.goff.resize(size);
  l.lidx.resize(size);
  for (uint64_t r = 0; r < size; r++) {
    uint64_t g = 0;
    uint32_t li = 0;
    for (int j = 0; j < p.a; j++) {
      if ((r >> j) & 1) {
        g |= uint64_t{1} << p.globalOf[order[j]];
        li |= 1u << order[j];
      }
    }
    l.goff[r] = g;
    l.lidx[r] = li;
  }
  uint64_t active = 0;
  for (int q : p.globalOf) active |= uint64_t{1} << q;
  for (int b = 0; b < n; b++) if (!((active >> b) & 1)) l.rest.push_back(b);
  return l;
}

uint64_t chunkBase(uint64_t c, const std::vector<int>& rest) {
  uint64_t base = 0;
  for (size_t j = 0; j < rest.size(); j++) if ((c >> j) & 1) base |= uint64_t{1} << rest[j];
  return base;
}

void applyOps(double* re, double* im, const Pass& p, uint64_t base) {
  for (const Op& op : p.ops) {
    if ((base & op.outerMask) != op.outerMask) continue;
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
    }
  }
}

void runChunks(double* st, const Pass& p, const Layout& l, uint64_t from, uint64_t to, double* re, double* im) {
  const uint64_t size = uint64_t{1} << p.a;
  const uint64_t* goff = l.goff.data();
  const uint32_t* lidx = l.lidx.data();
  for (uint64_t c = from; c < to; c++) {
    const uint64_t base = chunkBase(c, l.rest);
    double* s = st + 2 * base;
    for (uint64_t r = 0; r < size; r++) {
      const uint64_t g = 2 * goff[r];
      re[lidx[r]] = s[g];
      im[lidx[r]] = s[g + 1];
    }
    applyOps(re, im, p, base);
    for (uint64_t r = 0; r < size; r++) {
      const uint64_t g = 2 * goff[r];
      s[g] = re[lidx[r]];
      s[g + 1] = im[lidx[r]];
    }
  }
}

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
      if (op.type < kDense1 || op.type > kSwap) throw std::runtime_error("unknown op in statevector program");
      if (op.type == kDenseK && (op.k < 1 || op.k > MAX_K)) throw std::runtime_error("bad dense op width");
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
      if (op.type == kDenseK) for (int j = 0; j < op.k; j++) if (!localOk(op.qs[j])) throw std::runtime_error("bad targets");
      p.ops.push_back(op);
    }
  }
  return passes;
}

void runProgram(double* st, int n, const std::vector<Pass>& passes, int threads) {
  int maxA = 1;
  for (const Pass& p : passes) maxA = std::max(maxA, p.a);
  threads = std::max(1, threads);
  std::vector<Buffer> buffers;
  const bool trace = std::getenv("LATTICE_SIM_TRACE") != nullptr;
  for (const Pass& p : passes) {
    const auto started = std::chrono::steady_clock::now();
    struct Trace {
      bool on;
      const Pass& p;
      std::chrono::steady_clock::time_point t0;
      ~Trace() {
        if (on) std::fprintf(stderr, "pass a=%d ops=%zu %.1f ms\n", p.a, p.ops.size(), std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
    } traced{trace, p, started};
    const Layout l = layoutOf(p, n);
    const uint64_t chunks = uint64_t{1} << (n - p.a);
    const int t = int(std::min<uint64_t>(uint64_t(threads), chunks));
    while (int(buffers.size()) < 2 * t) buffers.push_back(allocBuffer(uint64_t{1} << maxA));
    if (t == 1) {
      runChunks(st, p, l, 0, chunks, buffers[0].get(), buffers[1].get());
      continue;
    }
    std::vector<std::thread> pool;
    const uint64_t per = (chunks + t - 1) / t;
    for (int w = 1; w < t; w++) {
      const uint64_t from = std::min(chunks, w * per), to = std::min(chunks, (w + 1) * per);
      pool.emplace_back(runChunks, st, std::cref(p), std::cref(l), from, to, buffers[2 * w].get(), buffers[2 * w + 1].get());
    }
    runChunks(st, p, l, 0, std::min(chunks, per), buffers[0].get(), buffers[1].get());
    for (auto& th : pool) th.join();
  }
}

}  // namespace lattice
