// Node-API surface of the native statevector: run a compiled program on a state, sample from
// it, and read marginal probabilities. A state is complex128 (a Float64Array) or complex64 (a
// Float32Array, single precision). States of up to 28 qubits are typed arrays that JavaScript
// allocates and the garbage collector owns; larger ones (JavaScript arrays stop at 4 GiB) are
// allocated here, stay opaque, and are freed explicitly when a run is done.
#define NAPI_VERSION 8
#include <node_api.h>
#include <sys/mman.h>
#include <unistd.h>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include "program.h"

namespace {

using namespace lattice;

struct State {
  void* data;
  size_t bytes;
  std::atomic<int> refs;
  bool single;  // complex64 amplitudes
};

void unref(State* s) {
  if (s->refs.fetch_sub(1) == 1) {
    if (s->data) munmap(s->data, s->bytes);
    delete s;
  }
}

// The garbage collector is told of a native state's size, so that unreachable ones are
// collected as they add up (JavaScript callers also free them explicitly when done).
void forget(napi_env env, State* s) {
  int64_t total;
  napi_adjust_external_memory(env, -int64_t(s->bytes), &total);
  unref(s);
}
void finalizeExternal(napi_env env, void* data, void*) { forget(env, static_cast<State*>(data)); }

// Large pages cut the TLB misses of passes that stride across a large state.
void adviseLargePages(void* p, size_t bytes) {
  if (bytes < (size_t{64} << 20) || std::getenv("LATTICE_SIM_NO_HUGEPAGES")) return;
  const uintptr_t start = (reinterpret_cast<uintptr_t>(p) + 0x1fffff) & ~uintptr_t{0x1fffff};
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~uintptr_t{0x1fffff};
  if (end > start) madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
}

#define CHECK(call)                                                       \
  do {                                                                    \
    if ((call) != napi_ok) throw std::runtime_error("node-api call failed"); \
  } while (0)

struct Args {
  napi_value v[6];
  size_t n = 6;
};

Args args(napi_env env, napi_callback_info info) {
  Args a;
  CHECK(napi_get_cb_info(env, info, &a.n, a.v, nullptr, nullptr));
  return a;
}

double number(napi_env env, napi_value v) {
  double x;
  if (napi_get_value_double(env, v, &x) != napi_ok) throw std::runtime_error("expected a number");
  return x;
}

// The bytes behind an ArrayBuffer, a typed array or an opaque state; `single` (when asked)
// tells whether it holds float32 numbers (a Float32Array or a complex64 native state).
void* bytesOf(napi_env env, napi_value v, size_t* length, bool* single = nullptr) {
  if (single) *single = false;
  bool is = false;
  void* data = nullptr;
  CHECK(napi_is_typedarray(env, v, &is));
  if (is) {
    napi_typedarray_type type;
    size_t len, offset;
    napi_value ab;
    CHECK(napi_get_typedarray_info(env, v, &type, &len, &data, &ab, &offset));
    size_t width = type == napi_float64_array ? 8 : (type == napi_int32_array || type == napi_uint32_array || type == napi_float32_array) ? 4 : 1;
    *length = len * width;
    if (single) *single = type == napi_float32_array;
    return data;
  }
  CHECK(napi_is_arraybuffer(env, v, &is));
  if (is) {
    CHECK(napi_get_arraybuffer_info(env, v, &data, length));
    return data;
  }
  napi_valuetype t;
  CHECK(napi_typeof(env, v, &t));
  if (t == napi_external) {
    CHECK(napi_get_value_external(env, v, &data));
    State* s = static_cast<State*>(data);
    if (!s->data) throw std::runtime_error("the state has been freed");
    *length = s->bytes;
    if (single) *single = s->single;
    return s->data;
  }
  throw std::runtime_error("expected a state, an ArrayBuffer or a typed array");
}

struct Amplitudes {
  void* data;
  bool single;
  size_t bytes;
};

// Returns the state's amplitudes after checking that they hold n qubits.
Amplitudes stateOf(napi_env env, napi_value v, int n) {
  Amplitudes a{};
  a.data = bytesOf(env, v, &a.bytes, &a.single);
  if (n < 0 || n > 34 || a.bytes != ((a.single ? size_t{8} : size_t{16}) << n)) throw std::runtime_error("the state does not hold that many qubits");
  return a;
}

template <typename F>
napi_value guarded(napi_env env, F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    napi_throw_error(env, nullptr, e.what());
    return nullptr;
  }
}

// A state of more than 28 qubits (JavaScript arrays stop at 4 GiB), in |0...0>; complex64
// when the second argument is true.
napi_value AllocState(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[0]));
    bool single = false;
    if (a.n > 1) napi_get_value_bool(env, a.v[1], &single);
    if (n < 29 || n > 34) throw std::runtime_error("native states are for 29 to 34 qubits; smaller ones live in a typed array");
    const size_t bytes = (single ? size_t{8} : size_t{16}) << n;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot allocate the statevector (" + std::to_string(bytes >> 20) + " MiB)");
    adviseLargePages(p, bytes);
    State* s = new State{p, bytes, {1}, single};
    if (single) static_cast<float*>(p)[0] = 1;
    else static_cast<double*>(p)[0] = 1;
    int64_t total;
    napi_adjust_external_memory(env, int64_t(bytes), &total);
    napi_value out;
    CHECK(napi_create_external(env, s, finalizeExternal, nullptr, &out));
    return out;
  });
}

// Returns a native state's memory now, without waiting for the garbage collector.
napi_value FreeState(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    void* data = nullptr;
    if (napi_get_value_external(env, a.v[0], &data) != napi_ok) throw std::runtime_error("expected a native state");
    State* s = static_cast<State*>(data);
    if (s->data) {
      munmap(s->data, s->bytes);
      s->data = nullptr;
    }
    return nullptr;
  });
}

napi_value Run(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    const Amplitudes st = stateOf(env, a.v[0], n);
    adviseLargePages(st.data, st.bytes);
    size_t intBytes, realBytes;
    const int32_t* ints = static_cast<const int32_t*>(bytesOf(env, a.v[2], &intBytes));
    const double* reals = static_cast<const double*>(bytesOf(env, a.v[3], &realBytes));
    const int threads = int(number(env, a.v[4]));
    bool fromZero = false;
    if (a.n > 5) napi_get_value_bool(env, a.v[5], &fromZero);
    const std::vector<Pass> passes = decodeProgram(ints, intBytes / 4, reals, realBytes / 8, n);
    if (st.single) runProgram(static_cast<float*>(st.data), n, passes, threads, fromZero);
    else runProgram(static_cast<double*>(st.data), n, passes, threads, fromZero);
    return nullptr;
  });
}

napi_value Sample(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    const Amplitudes st = stateOf(env, a.v[0], n);
    size_t uBytes, outBytes;
    const double* u = static_cast<const double*>(bytesOf(env, a.v[2], &uBytes));
    const double total = number(env, a.v[3]);
    uint32_t* out = static_cast<uint32_t*>(bytesOf(env, a.v[4], &outBytes));
    if (outBytes / 4 != uBytes / 8) throw std::runtime_error("uniforms and output differ in length");
    if (st.single) sampleSweep(static_cast<const float*>(st.data), uint64_t{1} << n, u, uint32_t(uBytes / 8), total, out);
    else sampleSweep(static_cast<const double*>(st.data), uint64_t{1} << n, u, uint32_t(uBytes / 8), total, out);
    return nullptr;
  });
}

napi_value Marginal(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    const Amplitudes st = stateOf(env, a.v[0], n);
    size_t qBytes, outBytes;
    const int* qubits = static_cast<const int*>(bytesOf(env, a.v[2], &qBytes));
    double* out = static_cast<double*>(bytesOf(env, a.v[3], &outBytes));
    const int m = int(qBytes / 4);
    if (m > 24 || outBytes != (size_t{8} << m)) throw std::runtime_error("bad marginal output size");
    for (int j = 0; j < m; j++) if (qubits[j] < 0 || qubits[j] >= n) throw std::runtime_error("bad marginal qubit");
    if (st.single) marginal(static_cast<const float*>(st.data), uint64_t{1} << n, qubits, m, out);
    else marginal(static_cast<const double*>(st.data), uint64_t{1} << n, qubits, m, out);
    return nullptr;
  });
}

// Bytes of a core's L2 cache (0 when the system does not say): passes are sized to it.
napi_value CacheBytes(napi_env env, napi_callback_info) {
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  napi_value out;
  napi_create_double(env, l2 > 0 ? double(l2) : 0.0, &out);
  return out;
}

napi_value HardwareThreads(napi_env env, napi_callback_info) {
  napi_value out;
  napi_create_uint32(env, std::thread::hardware_concurrency(), &out);
  return out;
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"allocState", nullptr, AllocState, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"freeState", nullptr, FreeState, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"run", nullptr, Run, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sample", nullptr, Sample, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"marginal", nullptr, Marginal, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"hardwareThreads", nullptr, HardwareThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"cacheBytes", nullptr, CacheBytes, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
