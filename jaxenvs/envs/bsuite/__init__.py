"""envs/bsuite"""
