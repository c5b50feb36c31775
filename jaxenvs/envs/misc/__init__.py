"""envs/misc"""
