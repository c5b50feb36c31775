"""bsuite in JAX: bsuite's environments, its reward-noise and reward-scale variants, and every
bsuite sweep id (`jaxenvs.make("bsuite/catch_noise/3")`), checked against the `bsuite` package.

Base ids: `SimpleBandit-bsuite`, `Catch-bsuite`, `DeepSea-bsuite`, `DeepSeaStochastic-bsuite`,
`DiscountingChain-bsuite`, `MemoryChain-bsuite`, `UmbrellaChain-bsuite`, `MNISTBandit-bsuite`,
`CartPole-bsuite`, `CartPoleSwingup-bsuite`, `MountainCar-bsuite`.
"""
