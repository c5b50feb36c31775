"""envs/toy_text"""
