"""Classic control, exactly as gymnasium defines it: CartPole, Acrobot, MountainCar,
MountainCarContinuous, Pendulum."""
