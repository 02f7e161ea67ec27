"""Flexible bodies: the planar ANCF cable (gradient-deficient Euler-Bernoulli) element."""
