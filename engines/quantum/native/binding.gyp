{
  "targets": [
    {
      "target_name": "lattice_statevector",
      "sources": ["src/addon.cc", "src/passes.cc", "src/sample.cc"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-std=c++17", "-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=fast", "-pthread"],
      "cflags!": ["-O2"],
      "ldflags": ["-pthread"]
    }
  ]
}
