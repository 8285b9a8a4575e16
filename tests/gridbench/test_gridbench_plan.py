"""gridbench's plan (bench/gridbench/plan.py): the sweep's combinations, those that cannot
run left out with the reason, and the run order: every variant once per repetition, a new
order each repetition, the same order for the same seed, WAN cells kept together. No
transfers."""

import collections

from gridftp_harness import run_tests
from gridbench.plan import expand
from gridbench.study import parse_study

STUDY = """
[study]
repetitions = 3
order = "{order}"
seed = 5

[sweep]
level = ["none", "dcau", "dcsafe", "integrity", "dcpriv"]
streams = [1, 4]
server = ["gridftpd", "globus-gridftp-server"]
transport = ["tcp", "udpx"]
concurrency = [1, 8]

[[dataset]]
kind = "memory"
size = "1M"

[[dataset]]
kind = "tree"
files = 4
file_size = "1K"
directory = "/var/tmp"
"""


def plan_of(order: str = "shuffle", extra: str = ""):
    return expand(parse_study(STUDY.format(order=order) + extra, "plan.toml"))


def test_exclusions_and_counts():
    plan = plan_of()
    reasons = dict(plan.excluded)
    assert "globus-gridftp-server integrity tcp" in reasons
    assert "globus-gridftp-server dcpriv udpx" in reasons
    assert "gridftpd none udpx" in reasons
    for v in plan.variants:
        assert not (v.server == "globus-gridftp-server" and v.level == "integrity"), v
        assert not (v.transport == "udpx" and (v.server != "gridftpd" or v.level == "none")), v
    # gridftpd: tcp 5 levels + udpx 4 levels; globus: tcp 4 levels; x2 streams; memory at
    # concurrency 1 only, the tree at 1 and 8.
    # UDPX is one flow: its variants collapse to -p 1.
    per_dataset = (5 + 4) * 2 + 4
    assert len(plan.variants) == per_dataset * 1 + per_dataset * 2, len(plan.variants)
    assert {v.streams for v in plan.variants if v.transport == "udpx"} == {1}
    assert any("UDPX is one flow" in n for n in plan.notes), plan.notes
    assert len(plan.runs) == 3 * len(plan.variants)
    assert any("concurrency applies to tree datasets only" in n for n in plan.notes), plan.notes
    assert {v.concurrency for v in plan.variants if v.dataset.startswith("memory")} == {1}


def test_every_variant_once_per_repetition_in_a_new_order():
    for order in ("shuffle", "rotate"):
        plan = plan_of(order)
        by_rep = collections.defaultdict(list)
        for run in plan.runs:
            by_rep[run.repetition].append(run.variant)
        assert sorted(by_rep) == [1, 2, 3]
        for rep, variants in by_rep.items():
            assert collections.Counter(variants) == collections.Counter(plan.variants), \
                f"{order}: repetition {rep} does not run every variant exactly once"
        assert by_rep[1] != by_rep[2] != by_rep[3], f"{order}: the same order every repetition"
        # the repetitions come one after the other
        assert [r.repetition for r in plan.runs] == sorted(r.repetition for r in plan.runs)
        assert [r.index for r in plan.runs] == list(range(1, len(plan.runs) + 1))


def test_rotate_reverses_odd_repetitions():
    plan = plan_of("rotate")
    n = len(plan.variants)
    first = [r.variant for r in plan.runs[:n]]
    second = [r.variant for r in plan.runs[n:2 * n]]
    assert first == plan.variants
    assert second == (plan.variants[1:] + plan.variants[:1])[::-1]


def test_same_seed_same_order_other_seed_other_order():
    a = [r.variant for r in plan_of().runs]
    b = [r.variant for r in plan_of().runs]
    other = expand(parse_study(STUDY.format(order="shuffle").replace("seed = 5", "seed = 6"),
                               "plan.toml"))
    assert a == b
    assert a != [r.variant for r in other.runs]


def test_sequential_keeps_repetitions_of_a_variant_together():
    plan = plan_of("sequential")
    variants = [r.variant for r in plan.runs]
    for i in range(0, len(variants), 3):
        assert variants[i] == variants[i + 1] == variants[i + 2]
        assert [r.repetition for r in plan.runs[i:i + 3]] == [1, 2, 3]


def test_wan_cells_are_visited_once_per_repetition():
    plan = plan_of(extra="[path]\nrtt_ms = [10, 100]\nloss_percent = [0, 1]\n")
    cells = {v.path for v in plan.variants}
    assert len(cells) == 4 and None not in cells
    visits = [(r.repetition, r.variant.path) for r in plan.runs]
    changes = [visits[0]] + [b for a, b in zip(visits, visits[1:]) if a != b]
    assert len(changes) == 3 * 4, f"each cell should be entered once per repetition: {len(changes)}"
    fields = plan.variants[0].fields()
    assert fields["rtt_ms"] in (10.0, 100.0) and fields["rate_mbit"] == 1000.0


if __name__ == "__main__":
    run_tests(globals())
