// Node-API surface of the native statevector: allocate a state, run a compiled program on it,
// sample from it, and read marginal probabilities. States of up to 2^28 amplitudes are handed
// to JavaScript as ArrayBuffers over native memory (no copy); larger ones (JavaScript cannot
// index more than 4 GiB in one array) stay opaque and are only sampled or summarised here.
#define NAPI_VERSION 8
#include <node_api.h>
#include <sys/mman.h>
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
  double* data;
  size_t bytes;
  std::atomic<int> refs;
};

void unref(State* s) {
  if (s->refs.fetch_sub(1) == 1) {
    munmap(s->data, s->bytes);
    delete s;
  }
}

void finalizeExternal(napi_env, void* data, void*) { unref(static_cast<State*>(data)); }
void finalizeBuffer(napi_env, void*, void* hint) { unref(static_cast<State*>(hint)); }

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

// The bytes behind an ArrayBuffer, a typed array or an opaque state.
void* bytesOf(napi_env env, napi_value v, size_t* length) {
  bool is = false;
  void* data = nullptr;
  CHECK(napi_is_typedarray(env, v, &is));
  if (is) {
    napi_typedarray_type type;
    size_t len, offset;
    napi_value ab;
    CHECK(napi_get_typedarray_info(env, v, &type, &len, &data, &ab, &offset));
    size_t width = type == napi_float64_array ? 8 : (type == napi_int32_array || type == napi_uint32_array) ? 4 : 1;
    *length = len * width;
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
    *length = s->bytes;
    return s->data;
  }
  throw std::runtime_error("expected a state, an ArrayBuffer or a typed array");
}

// Returns the state's amplitudes after checking that they hold n qubits.
double* stateOf(napi_env env, napi_value v, int n) {
  size_t bytes = 0;
  void* p = bytesOf(env, v, &bytes);
  if (n < 0 || n > 34 || bytes != (size_t{16} << n)) throw std::runtime_error("the state does not hold that many qubits");
  return static_cast<double*>(p);
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

napi_value AllocState(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[0]));
    if (n < 0 || n > 34) throw std::runtime_error("qubit count out of range");
    const size_t bytes = size_t{16} << n;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("cannot allocate the statevector (" + std::to_string(bytes >> 20) + " MiB)");
    // Large pages halve the TLB misses of passes that stride across the state.
    if (!std::getenv("LATTICE_SIM_NO_HUGEPAGES")) madvise(p, bytes, MADV_HUGEPAGE);
    State* s = new State{static_cast<double*>(p), bytes, {1}};
    s->data[0] = 1;
    napi_value out;
    if (n <= 28) {
      if (napi_create_external_arraybuffer(env, s->data, bytes, finalizeBuffer, s, &out) != napi_ok) {
        unref(s);
        throw std::runtime_error("cannot expose the statevector to JavaScript");
      }
    } else {
      CHECK(napi_create_external(env, s, finalizeExternal, nullptr, &out));
    }
    return out;
  });
}

napi_value Run(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    double* st = stateOf(env, a.v[0], n);
    size_t intBytes, realBytes;
    const int32_t* ints = static_cast<const int32_t*>(bytesOf(env, a.v[2], &intBytes));
    const double* reals = static_cast<const double*>(bytesOf(env, a.v[3], &realBytes));
    const int threads = int(number(env, a.v[4]));
    bool fromZero = false;
    if (a.n > 5) napi_get_value_bool(env, a.v[5], &fromZero);
    const std::vector<Pass> passes = decodeProgram(ints, intBytes / 4, reals, realBytes / 8, n);
    runProgram(st, n, passes, threads, fromZero);
    return nullptr;
  });
}

napi_value Sample(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    const double* st = stateOf(env, a.v[0], n);
    size_t uBytes, outBytes;
    const double* u = static_cast<const double*>(bytesOf(env, a.v[2], &uBytes));
    const double total = number(env, a.v[3]);
    uint32_t* out = static_cast<uint32_t*>(bytesOf(env, a.v[4], &outBytes));
    if (outBytes / 4 != uBytes / 8) throw std::runtime_error("uniforms and output differ in length");
    sampleSweep(st, uint64_t{1} << n, u, uint32_t(uBytes / 8), total, out);
    return nullptr;
  });
}

napi_value Marginal(napi_env env, napi_callback_info info) {
  return guarded(env, [&]() -> napi_value {
    Args a = args(env, info);
    const int n = int(number(env, a.v[1]));
    const double* st = stateOf(env, a.v[0], n);
    size_t qBytes, outBytes;
    const int* qubits = static_cast<const int*>(bytesOf(env, a.v[2], &qBytes));
    double* out = static_cast<double*>(bytesOf(env, a.v[3], &outBytes));
    const int m = int(qBytes / 4);
    if (m > 24 || outBytes != (size_t{8} << m)) throw std::runtime_error("bad marginal output size");
    for (int j = 0; j < m; j++) if (qubits[j] < 0 || qubits[j] >= n) throw std::runtime_error("bad marginal qubit");
    marginal(st, uint64_t{1} << n, qubits, m, out);
    return nullptr;
  });
}

napi_value HardwareThreads(napi_env env, napi_callback_info) {
  napi_value out;
  napi_create_uint32(env, std::thread::hardware_concurrency(), &out);
  return out;
}

napi_value Init(napi_env env, napi_value exports) {
  const napi_property_descriptor props[] = {
      {"allocState", nullptr, AllocState, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"run", nullptr, Run, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"sample", nullptr, Sample, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"marginal", nullptr, Marginal, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"hardwareThreads", nullptr, HardwareThreads, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
