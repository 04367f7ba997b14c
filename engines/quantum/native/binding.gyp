{
  "targets": [
    {
      "target_name": "lattice_statevector",
      "sources": ["src/addon.cc", "src/passes.cc", "src/sample.cc"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast", "-pthread"],
      "cflags!": ["-O2"],
      "ldflags": ["-pthread"],
      "conditions": [
        # GCC vectorises with 256-bit registers on AVX-512 CPUs unless told otherwise (it avoids
        # the lower clock of wide instructions); the kernels are FMA- and L2-bound, where full
        # width does twice the work per instruction. Where AVX-512 is absent it changes nothing.
        ["target_arch=='x64'", { "cflags_cc": ["-mprefer-vector-width=512"] }]
      ]
    }
  ]
}
