"""Wrappers, one concern per file."""

from jaxenvs.wrappers.absorbing import Absorbing
from jaxenvs.wrappers.action import ClipAction
from jaxenvs.wrappers.autoreset import AutoReset
from jaxenvs.wrappers.base import Wrapper, find_wrapper
from jaxenvs.wrappers.checked import Checked, checked_jit
from jaxenvs.wrappers.defaults import RegisteredDefaults
from jaxenvs.wrappers.frame_stack import FrameStackObservation
from jaxenvs.wrappers.legacy import LegacyStep
from jaxenvs.wrappers.levels import Levels, LevelState
from jaxenvs.wrappers.log import LogEnvState, LogWrapper
from jaxenvs.wrappers.normalize import NormalizeObservation, NormalizeReward
from jaxenvs.wrappers.observation import FlattenObservation
from jaxenvs.wrappers.pixel import PixelObservation
from jaxenvs.wrappers.start import StartWrapper
from jaxenvs.wrappers.transform import TransformObservation, TransformReward
from jaxenvs.wrappers.vector import VecEnv

__all__ = [
    "Absorbing",
    "AutoReset",
    "Checked",
    "ClipAction",
    "FlattenObservation",
    "FrameStackObservation",
    "LegacyStep",
    "LevelState",
    "Levels",
    "LogEnvState",
    "LogWrapper",
    "NormalizeObservation",
    "NormalizeReward",
    "PixelObservation",
    "RegisteredDefaults",
    "StartWrapper",
    "TransformObservation",
    "TransformReward",
    "VecEnv",
    "Wrapper",
    "checked_jit",
    "find_wrapper",
]
