System.put_env("XLA_TARGET", "cuda118")

Mix.install([
  {:bumblebee, "~> 0.1.0"},
  {:nx, "~> 0.4.1"},
  {:exla, "~> 0.4.1"},
  {:axon, "~> 0.3.1"},
  {:kino, "~> 0.8.0"}
  ],
config: [
    nx: [
      default_backend: EXLA.Backend,
      default_defn_options: [compiler: EXLA]   
    ],
    exla: [
      clients: [
        cuda: [memory_fraction: 0.6, platform: :cuda]
      ]
    ]
  ]
)

Nx.global_default_backend(EXLA.Backend)
