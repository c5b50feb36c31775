"""`benchmarks/profile_kernels.py`: self times of nested kernels, and kernels named by their source."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "benchmarks"))
profile_kernels = pytest.importorskip("profile_kernels")


def _event(name, ts, dur, tid=1):
    return {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": 1, "tid": tid}


def test_a_kernel_run_inside_another_counts_once():
    events = [
        _event("while.1", 0, 100),  # a loop running two kernels inside it
        _event("fusion.1", 10, 30),
        _event("fusion.2", 50, 20),
        _event("fusion.1", 200, 30),  # after the loop
        _event("fusion.3", 0, 40, tid=2),  # another thread overlapping the loop
        _event("PjitFunction(run)", 0, 500),  # not a kernel of the module
    ]
    times = profile_kernels._self_times(events, {"while.1", "fusion.1", "fusion.2", "fusion.3"})
    assert times == {"while.1": 50, "fusion.1": 60, "fusion.2": 20, "fusion.3": 40}
    assert sum(times.values()) == 170  # the kernels' time, with no span counted twice


HLO = """HloModule m

FileNames
1 "/src/jaxenvs/bench.py"
2 "/src/jaxenvs/envs/bsuite/catch/env.py"

FunctionNames
1 "_rollout.<locals>.run"
2 "board"

FileLocations
1 {file_name_id=1 function_name_id=1 line=226 end_line=226 column=1 end_column=2}
2 {file_name_id=2 function_name_id=2 line=79 end_line=79 column=1 end_column=2}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}

ENTRY %main {
  %while.3 = (s32[]) while(%t), condition=%c, body=%b, metadata={op_name="x" stack_frame_id=1}
  %select_fusion = f32[8,5] fusion(%p), kind=kLoop, metadata={op_name="y" stack_frame_id=2}
}
"""


def test_kernels_are_named_by_their_innermost_frame_and_part():
    frames = profile_kernels._frames(HLO)
    assert frames == {
        "while.3": "/src/jaxenvs/bench.py:226 _rollout.<locals>.run",
        "select_fusion": "/src/jaxenvs/envs/bsuite/catch/env.py:79 board",
    }
    assert profile_kernels._part("while.3", frames["while.3"]) == "scan"
    assert profile_kernels._part("select_fusion", frames["select_fusion"]) == "env"
