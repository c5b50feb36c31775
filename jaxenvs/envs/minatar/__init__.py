"""envs/minatar"""
