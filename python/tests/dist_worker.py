"""The rank side of the multi-process tests (test_torch_dist.py).

Each rank runs every scenario in order and records, per scenario, "ok" or
the failure, in OUTDIR/rank{r}.json; the pytest side asserts on those. All
ranks run the same scenarios in the same order, so a failing scenario on
one rank cannot leave the others waiting (every collective is matched), and
the process group's timeout bounds every wait.
"""

import datetime
import hashlib
import json
import os
import traceback

import numpy as np
import torch
import torch.distributed as dist

import tickopt
import tickopt.torch as tt

TIMEOUT = datetime.timedelta(seconds=60)


def skewed_rows(world, seed, scale=6.0):
    """Log-normal split sizes (rows) with zeros and one hot rank; the same on every rank."""
    rng = np.random.default_rng(seed)
    m = np.rint(rng.lognormal(mean=scale / 2, sigma=1.2, size=(world, world))).astype(np.int64)
    m[rng.random((world, world)) < 0.25] = 0
    m[1, :] = m[1, :] * 8 + 3
    return m.tolist()


def make_input(rows, rank, trailing, dtype, seed):
    n = sum(rows[rank])
    g = torch.Generator().manual_seed(seed * 1000 + rank)
    if dtype.is_floating_point:
        return torch.randn((n, *trailing), generator=g).to(dtype)
    return torch.randint(-100, 100, (n, *trailing), generator=g).to(dtype)


def same_bytes(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(
        a.contiguous().view(-1).view(torch.uint8), b.contiguous().view(-1).view(torch.uint8))


def reference(inp, rows, rank, world):
    out_rows = [rows[s][rank] for s in range(world)]
    out = torch.empty((sum(out_rows), *inp.shape[1:]), dtype=inp.dtype)
    dist.all_to_all_single(out, inp, out_rows, rows[rank])
    return out, out_rows


def scenario_a2a(rank, world, seed, trailing, dtype, model, chunk_bytes):
    rows = skewed_rows(world, seed)
    inp = make_input(rows, rank, trailing, dtype, seed)
    want, out_rows = reference(inp, rows, rank, world)
    got = torch.full_like(want, 7)
    tt.all_to_all_single(got, inp, out_rows, rows[rank], model=model, chunk_bytes=chunk_bytes)
    assert same_bytes(got, want), "all_to_all_single differs from torch's"


def scenario_even(rank, world):
    inp = torch.arange(world * 5 * 2, dtype=torch.int32).reshape(world * 5, 2) + 1000 * rank
    want = torch.empty_like(inp)
    dist.all_to_all_single(want, inp)
    got = torch.zeros_like(inp)
    tt.all_to_all_single(got, inp)
    assert same_bytes(got, want), "even splits differ from torch's"


def scenario_plan_reuse_and_determinism(rank, world):
    rows = skewed_rows(world, 11)
    out_rows = [rows[s][rank] for s in range(world)]
    plan = tt.plan_all_to_all(rows[rank], out_rows, row_bytes=4 * 3, chunk_bytes=64)
    digest = hashlib.sha256(json.dumps(plan.solution.schedule).encode()).hexdigest()
    digests = [None] * world
    dist.all_gather_object(digests, (digest, plan.solution.ticks), group=None)
    assert len(set(digests)) == 1, f"ranks planned differently: {digests}"
    assert plan.solution.verify(), "plan does not verify"
    assert tickopt.validate(
        [(s, d, rows[s][d] * 12 * 8) for s in range(world) for d in range(world) if s != d and rows[s][d]],
        plan.solution.schedule, bw=64 * 8, slots=world, model=plan.solution.model) == []
    assert plan.solution.model == "READ1_WRITE1", "the runner's default model is READ1_WRITE1"
    for it in range(3):
        inp = make_input(rows, rank, (3,), torch.float32, 100 + it)
        want, _ = reference(inp, rows, rank, world)
        got = torch.empty_like(want)
        plan.run(got, inp)
        assert same_bytes(got, want), f"run {it} differs from torch's"
    bad = torch.empty((sum(rows[rank]) + 1, 3), dtype=torch.float32)
    try:
        plan.run(torch.empty_like(want), bad)
    except ValueError as e:
        assert "the plan needs" in str(e), str(e)
    else:
        raise AssertionError("a wrong input shape was accepted")


def scenario_split_mismatch(rank, world):
    ins = [2] * world
    outs = [2] * world
    if rank == 0:
        outs[1] = 3  # rank 1 sends 2 rows, rank 0 expects 3
    try:
        tt.plan_all_to_all(ins, outs)
    except ValueError as e:
        assert "expects output splits" in str(e), str(e)
    else:
        raise AssertionError("mismatched splits were accepted")


def scenario_remote_copy(rank, world):
    rc = tt.RemoteCopy(chunk_bytes=48)
    sends, recvs = [], []
    specs = []  # (src, dst, numel, dtype), the same list on every rank
    for s in range(world):
        specs.append((s, (s + 1) % world, 10 + s, torch.float32))
        specs.append((s, (s + 3) % world, 7 * (s % 3), torch.int16))
        specs.append((s, (s + 1) % world, 5, torch.float64))
        specs.append((s, s, 4, torch.int64))
    for k, (s, d, n, dt) in enumerate(specs):
        if s == rank:
            t = (torch.arange(n) + 100 * k).to(dt)
            rc.add_send(d, t)
            sends.append(t)
        if d == rank:
            u = torch.zeros(n, dtype=dt)
            rc.add_recv(s, u)
            recvs.append((k, u))
    sol = rc.schedule()
    assert sol.verify()
    for it in range(2):
        for t in sends:
            t.add_(1) if it else None
        rc.run()
        for k, u in recvs:
            s, d, n, dt = specs[k]
            want = (torch.arange(n) + 100 * k).to(dt) + it
            assert same_bytes(u, want), f"remote copy {k} ({s}->{d}) wrong in run {it}"


def scenario_remote_copy_mismatch(rank, world):
    rc = tt.RemoteCopy()
    if rank == 0:
        rc.add_send(1, torch.zeros(10))
    if rank == 1:
        rc.add_recv(0, torch.zeros(12))
    if rank == 2:
        rc.add_send(3, torch.zeros(4, dtype=torch.int32))
    if rank == 3:
        rc.add_recv(2, torch.zeros(4, dtype=torch.float32))
    msg = same_error_everywhere(rc.schedule, world)
    for needle in ("task 0 from rank 0 to rank 1: the send is 40 bytes of torch.float32, the receive 48 bytes",
                   "task 0 from rank 2 to rank 3: the send is 16 bytes of torch.int32, "
                   "the receive 16 bytes of torch.float32"):
        assert needle in msg, msg


def must_raise(fn, cls, needle, what):
    """Calls fn, which must raise `cls` (on this rank) with `needle` in its message."""
    try:
        fn()
    except cls as e:
        assert needle in str(e), str(e)
    else:
        raise AssertionError(f"{what} was accepted")


def same_error_everywhere(fn, world, cls=ValueError):
    """Calls fn, which must raise `cls` on every rank with the same message; returns it."""
    try:
        fn()
    except cls as e:
        msg = str(e)
    else:
        msg = None
    msgs = [None] * world
    dist.all_gather_object(msgs, msg)
    assert msg is not None, "accepted on this rank"
    assert len(set(msgs)) == 1, f"ranks raised different errors: {msgs}"
    return msg


def scenario_rows_plan_any_row_size(rank, world):
    """One plan in rows (no row_bytes) runs on rows of any size; equal to torch's."""
    rows = skewed_rows(world, 21)
    out_rows = [rows[s][rank] for s in range(world)]
    largest = max(max(r) for r in rows)
    plans = [tt.plan_all_to_all(rows[rank], out_rows, model="STRICT1", chunk_rows=largest),
             tt.plan_all_to_all(rows[rank], out_rows)]
    assert plans[1].solution.ticks > plans[0].solution.ticks, "the default chunk did not cut the demands"
    assert (plans[0].solution.model, plans[1].solution.model) == ("STRICT1", "READ1_WRITE1")
    cases = [((5,), torch.float32), ((3, 2), torch.bfloat16), ((7,), torch.int8), ((), torch.float64)]
    for p, plan in enumerate(plans):
        assert plan.row_bytes is None
        for c, (trailing, dtype) in enumerate(cases):
            inp = make_input(rows, rank, trailing, dtype, 40 + 10 * p + c)
            want, _ = reference(inp, rows, rank, world)
            got = torch.full_like(want, 3)
            plan.run(got, inp)
            assert same_bytes(got, want), f"plan {p}, {dtype} rows of shape {trailing} differ from torch's"


def scenario_rows_plan_mismatch(rank, world):
    """A plan in rows refuses, on every rank with one message, rows of different
    sizes on different ranks and rows that do not fit the plan; then runs."""
    rows = [[2 + (s + d) % 3 for d in range(world)] for s in range(world)]
    out_rows = [rows[s][rank] for s in range(world)]
    plan = tt.plan_all_to_all(rows[rank], out_rows)
    width = 4 if rank == 1 else 5
    inp = torch.ones(sum(rows[rank]), width)
    out = torch.empty(sum(out_rows), width)
    msg = same_error_everywhere(lambda: plan.run(out, inp), world)
    assert "rows differ in size" in msg and "rank 0 20/20, rank 1 16/16" in msg, msg
    extra = 1 if rank == 2 else 0
    inp = torch.ones(sum(rows[rank]) + extra, 5)
    msg = same_error_everywhere(lambda: plan.run(torch.empty(sum(out_rows), 5), inp), world)
    assert f"rank 2: input has {sum(rows[2]) + 1} rows, the plan needs {sum(rows[2])}" in msg, msg
    assert "rows differ" not in msg, msg
    inp = make_input(rows, rank, (5,), torch.float32, 77)
    want, _ = reference(inp, rows, rank, world)
    got = torch.empty_like(want)
    plan.run(got, inp)
    assert same_bytes(got, want), "the plan in rows did not run after refusing"


def scenario_rows_plan_arguments(rank, world):
    """Plan arguments that cannot work, or differ between ranks, raise on every rank."""
    splits = [1] * world
    must_raise(lambda: tt.plan_all_to_all(splits, splits, chunk_bytes=64), ValueError,
               f"rank {rank}: chunk_bytes needs row_bytes=", "chunk_bytes without row_bytes")
    rb = 12 if rank == 0 else None
    msg = same_error_everywhere(lambda: tt.plan_all_to_all(splits, splits, row_bytes=rb), world)
    assert "rank 1 plans in rows, rank 0 has 12 bytes per row" in msg, msg
    chunk = 3 if rank == world - 1 else 2
    msg = same_error_everywhere(lambda: tt.plan_all_to_all(splits, splits, chunk_rows=chunk), world)
    assert f"rank {world - 1} chunks by 3, rank 0 by 2" in msg, msg


def service_tasks(world, variant):
    """The same transfer list on every rank: (task_id, src, dst, src_pos, size), in bytes.
    Task ids repeat across pairs (they pair within one source and destination)."""
    rng = np.random.default_rng(500 + variant)
    tasks = []
    for s in range(world):
        for d in range(world):
            for k in range(int(rng.integers(0, 4))):
                size = int(rng.integers(0, 40))
                pos = int(rng.integers(0, 200 - size))
                tasks.append((1000 * k + (d - s) % world + variant, s, d, pos, size))
    return tasks


def service_source(rank, it):
    """Rank `rank`'s send tensors in run `it`: a float32 vector and a
    non-contiguous int16 view (read in logical order), 200 bytes each."""
    a = (torch.arange(50, dtype=torch.float32) * 1.5 + 100 * rank + it)
    b = (torch.arange(100, dtype=torch.int16).reshape(10, 10) * 3 + 7 * rank + it).t()
    return [a, b]


def scenario_copy_service(rank, world):
    """RemoteCopyService with byte positions and sizes, registered in a shuffled
    order, self copies, run twice, then clear_requests() and a new pattern;
    compared with direct byte copies of the same sources."""
    svc = tt.RemoteCopyService(chunk_bytes=24)
    assert (svc.my_pe, svc.n_pes) == (rank, world), (svc.my_pe, svc.n_pes)
    for variant in (0, 1):
        tasks = service_tasks(world, variant)
        srcs = service_source(rank, 0)
        dest = torch.full((160,), -1.0, dtype=torch.float64)  # 1280 bytes
        regs, cursor, where = [], 0, {}
        for tid, s, d, pos, size in tasks:
            if d == rank:
                where[(s, tid)] = cursor + tid % 3
                regs.append(lambda tid=tid, s=s, size=size, at=cursor + tid % 3:
                            svc.register_receive(tid, dest, at, size, s))
                cursor += size + tid % 3
            if s == rank:
                regs.append(lambda tid=tid, d=d, pos=pos, size=size:
                            svc.register_send(tid, srcs[tid % 2], pos, size, d))
        assert cursor <= 1280
        for i in np.random.default_rng(rank + 10 * variant).permutation(len(regs)):
            regs[i]()
        sol = svc.schedule()
        assert sol.verify()
        for it in range(2):
            new = service_source(rank, it)
            for t, n in zip(srcs, new):
                t.copy_(n)
            svc.run()
            want = torch.full((160,), -1.0, dtype=torch.float64).view(torch.uint8)
            for tid, s, d, pos, size in tasks:
                if d == rank:
                    src = service_source(s, it)[tid % 2].contiguous().view(-1).view(torch.uint8)
                    at = where[(s, tid)]
                    want[at : at + size] = src[pos : pos + size]
            assert torch.equal(dest.view(torch.uint8), want), f"variant {variant}, run {it}: bytes differ"
        svc.clear_requests()
        must_raise(svc.run, RuntimeError, "run() before schedule()", "run() after clear_requests()")


def scenario_copy_service_unpaired(rank, world):
    """Unpaired task ids, sizes that differ, duplicates and bad registrations
    raise on every rank, with one message naming each."""
    svc = tt.RemoteCopyService()
    buf = torch.zeros(16, dtype=torch.uint8)
    if rank == 0:
        svc.register_send(5, buf, 0, 8, 1)        # rank 1 registers no receive of task 5
        svc.register_send(6, buf, 0, 16, 1)
        svc.register_send(6, buf, 0, 16, 1)       # twice
    if rank == 1:
        svc.register_receive(6, buf, 0, 16, 0)
        svc.register_send(3, buf, 0, 16, 2)
        svc.register_send(4, buf, 10, 20, 2)      # past the end
    if rank == 2:
        svc.register_receive(3, buf, 0, 12, 1)    # size differs
        svc.register_receive(9, buf, 0, 4, 3)     # rank 3 sends no task 9
        svc.register_receive(4, buf, 0, 4, world)  # no such rank
    msg = same_error_everywhere(svc.schedule, world)
    for needle in (
        "rank 1: register_send(task_id=4): bytes 10..30 are past the end of src_tensor (16 bytes)",
        f"rank 2: register_receive(task_id=4): src_pe {world} is not in the group ({world} ranks)",
        "rank 0 registers task 6 twice as a send to rank 1",
        "task 5: rank 0 sends 8 bytes to rank 1, which registers no receive of task 5 from rank 0",
        "task 9: rank 2 receives 4 bytes from rank 3, which registers no send of task 9 to rank 2",
        "task 3 from rank 1 to rank 2: the send is 16 bytes, the receive 12 bytes",
    ):
        assert needle in msg, f"{needle!r} not in {msg!r}"
    must_raise(svc.run, RuntimeError, "run() before schedule()", "run() after a refused schedule()")
    svc.clear_requests()
    svc.schedule()  # nothing registered anywhere: an empty plan
    svc.run()
    must_raise(lambda: svc.register_send(1, buf, 0, 1, 0), RuntimeError,
               "register_send after schedule()", "register_send after schedule()")


def scenario_bad_shape_raises_everywhere(rank, world):
    inp = torch.zeros(world * 2 + (1 if rank == 0 else 0), 3)
    out = torch.zeros(world * 2, 3)
    try:
        tt.all_to_all_single(out, inp, [2] * world, [2] * world)
    except ValueError as e:
        assert "rank 0: input has" in str(e) or "ranks [0]" in str(e), str(e)
    else:
        raise AssertionError("a wrong input shape on rank 0 was not refused")


def scenario_replans_by_edits(rank, world):
    """Steps whose splits change a little are planned by editing the last
    plan: the group's planner counts them (tickopt.torch.plan_stats)."""
    rows = skewed_rows(world, 31)
    before = tt.plan_stats()
    steps = 5
    for step in range(steps):
        if step:
            # One entry changes a little: the chunk (a power of two) stays.
            s_, d_ = step % world, (step + 1) % world
            rows[s_][d_] = rows[s_][d_] + 1 if rows[s_][d_] else 2
        inp = make_input(rows, rank, (4,), torch.float32, 300 + step)
        want, out_rows = reference(inp, rows, rank, world)
        got = torch.empty_like(want)
        tt.all_to_all_single(got, inp, out_rows, rows[rank])
        assert same_bytes(got, want), f"step {step} differs from torch's"
    after = tt.plan_stats()
    planned = after["planned"] - before["planned"]
    edited = after["edited"] - before["edited"]
    assert planned == steps, (before, after)
    assert edited >= steps - 2, f"only {edited} of {steps} steps were planned by edits: {after}"


def scenario_posted_ahead(rank, world, piece=None):
    """After a step run as dataflow, all_to_all_single posts its data
    ahead of the split exchange (plan_stats()["ahead"] counts those steps),
    outputs equal to torch's. Splits that disagree either way (a receiver
    expecting rows more, or fewer, than its sender sends: gloo aborts a
    receiver sent more than it posted for; also the last rank expecting a
    row fewer from itself), a bad shape, an unknown runner and ranks whose
    paths differ then raise ValueError on every rank, and the group stays
    usable: the next steps equal torch's. With `piece` (bytes;
    rows here are 12) every pair travels in many pieces, the last ones near
    the output's end through the staging buffer, and the disagreements
    change the pieces' counts."""
    import tickopt._ahead as ahead

    default = ahead.PIECE
    ahead.PIECE = piece or default
    try:
        _posted_ahead_steps(rank, world, (1, -1) if piece is None else (1, -1, 5, -5))
    finally:
        ahead.PIECE = default


def _posted_ahead_steps(rank, world, deltas):
    rows = skewed_rows(world, 41)
    rows[world - 1][world - 1] += 5  # the last rank keeps rows of its own
    sender = max(range(1, world), key=lambda s: rows[s][0])  # sends rank 0 the most rows
    hot = rows[sender][0]

    def step(seed, runner="auto", out_delta=0, extra_row=False, at=0, frm=sender):
        inp = make_input(rows, rank, (3,), torch.float32, seed)
        if extra_row and rank == 0:
            inp = torch.cat([inp, inp[:1]])
        want, out_rows = reference(inp[: sum(rows[rank])], rows, rank, world)
        if out_delta and rank == at:
            out_rows = list(out_rows)
            out_rows[frm] += out_delta
        got = torch.full((sum(out_rows), 3), 7.0)
        tt.all_to_all_single(got, inp, out_rows, rows[rank], runner=runner)
        assert same_bytes(got, want), f"step {seed} differs from torch's"

    step(500, runner="ticks")  # the group's last step: not dataflow
    before = tt.plan_stats()["ahead"]
    for seed in range(501, 504):
        step(seed)
    assert tt.plan_stats()["ahead"] - before == 2, tt.plan_stats()
    assert hot > max(abs(d) for d in deltas), rows
    for delta in deltas:
        msg = same_error_everywhere(lambda: step(510 + delta, out_delta=delta), world)
        assert "rank 0 expects output splits" in msg, msg
        step(520 + delta)  # the normal path after an error, then ahead again
        step(530 + delta)
    # The last rank expects a row fewer from itself: its own part, last in
    # its output, would not fit there.
    last = world - 1
    msg = same_error_everywhere(lambda: step(535, out_delta=-1, at=last, frm=last), world)
    assert f"rank {last} expects output splits" in msg, msg
    step(536)
    step(537)
    try:
        step(540, extra_row=True)
    except ValueError as e:
        msg = str(e)
    else:
        msg = "accepted"
    msgs = [None] * world
    dist.all_gather_object(msgs, msg)
    assert all("rank 0: input has" in m or "ranks [0] refused" in m for m in msgs), msgs
    step(541)
    step(542)
    # An unknown runner is refused on every rank, on this path as on the other.
    msg = same_error_everywhere(lambda: step(545, runner="bogus"), world)
    assert "runner must be one of auto, dataflow, ticks, got 'bogus'" in msg, msg
    step(546)
    step(547)
    # Ranks whose last steps ended differently (forced here) disagree on
    # the path: every rank raises, none is left waiting.
    if rank == 1:
        tt._AHEAD[dist.group.WORLD] = False
    msg = same_error_everywhere(lambda: step(550), world)
    assert "posted their data ahead of the split exchange" in msg, msg
    before = tt.plan_stats()["ahead"]
    step(551)
    step(552)
    assert tt.plan_stats()["ahead"] - before == 1, tt.plan_stats()


def scenario_subgroups(rank, world):
    """tickopt.torch on subgroups (even and odd ranks side by side, each its
    own all-to-all) equals torch's on the same subgroups; device= given."""
    evens, odds = list(range(0, world, 2)), list(range(1, world, 2))
    groups = [dist.new_group(evens), dist.new_group(odds)]
    mine = groups[rank % 2]
    members = evens if rank % 2 == 0 else odds
    size, me = len(members), members.index(rank)
    rows = [r[:size] for r in skewed_rows(size, 41 + rank % 2)[:size]]
    inp = make_input(rows, me, (3,), torch.float32, 500 + rank % 2)
    out_rows = [rows[s][me] for s in range(size)]
    want = torch.empty((sum(out_rows), 3), dtype=torch.float32)
    dist.all_to_all_single(want, inp, out_rows, rows[me], group=mine)
    got = torch.full_like(want, 9)
    tt.all_to_all_single(got, inp, out_rows, rows[me], group=mine)
    assert same_bytes(got, want), "subgroup all_to_all_single differs from torch's"
    plan = tt.plan_all_to_all(rows[me], out_rows, group=mine, device=torch.device("cpu"), runner="ticks")
    assert plan.runner == "ticks" and plan.ticks == plan.solution.ticks
    got2 = torch.full_like(want, 9)
    plan.run(got2, inp)
    assert same_bytes(got2, want), "subgroup plan run tick by tick differs from torch's"


def scenario_runners_agree(rank, world):
    """The dataflow runner and the tick-by-tick one deliver the same bytes,
    on skewed and on even splits; "auto" picks ticks for the even ones and
    dataflow for the skewed; an unknown runner is refused on every rank."""
    even = [[0 if s == d else 40 for d in range(world)] for s in range(world)]
    for rows, auto in ((skewed_rows(world, 51), "dataflow"), (even, "ticks")):
        inp = make_input(rows, rank, (2,), torch.int32, 600)
        want, out_rows = reference(inp, rows, rank, world)
        for runner in ("dataflow", "ticks", "auto"):
            got = torch.zeros_like(want)
            tt.all_to_all_single(got, inp, out_rows, rows[rank], runner=runner)
            assert same_bytes(got, want), f"runner {runner} differs from torch's"
        plan = tt.plan_all_to_all(rows[rank], out_rows, row_bytes=8)
        assert plan.runner == auto, f"auto ran {plan.runner} on {'even' if rows is even else 'skewed'} splits"
    msg = same_error_everywhere(
        lambda: tt.all_to_all_single(torch.zeros_like(want), inp, out_rows, rows[rank], runner="lockstep"), world)
    assert "runner must be one of auto, dataflow, ticks, got 'lockstep'" in msg, msg


def scenario_rates(rank, world):
    """Told the ranks' rates, a plan weighs each port by its rate: even
    splits with rank 1 at a quarter of the rate are bound by rank 1 (its
    bytes over its rate: bound_seconds) and run as dataflow, not tick by
    tick; rates that are missing or not above 0 are refused on every rank."""
    even = [[0 if s == d else 40 for d in range(world)] for s in range(world)]
    out_rows = [even[s][rank] for s in range(world)]
    rates = [10.0] * world
    rates[1] = 2.5
    plan = tt.plan_all_to_all(even[rank], out_rows, row_bytes=8, rank_gbps=rates)
    assert (plan.runner, plan.bounding_rank) == ("dataflow", 1), (plan.runner, plan.bounding_rank)
    want_s = 40 * (world - 1) * 8 * 8 / 2.5e9
    assert abs(plan.bound_seconds - want_s) < 1e-12 * want_s + 1e-15, (plan.bound_seconds, want_s)
    inp = make_input(even, rank, (2,), torch.int32, 800)
    want, _ = reference(inp, even, rank, world)
    got = torch.zeros_like(want)
    plan.run(got, inp)
    assert same_bytes(got, want), "the rated plan differs from torch's"
    for bad in ([1.0] * (world - 1), [0.0] * world):
        try:
            tt.plan_all_to_all(even[rank], out_rows, rank_gbps=bad)
        except ValueError as e:
            assert f"rank {rank}: rank_gbps needs {world} rates in Gbit/s above 0" in str(e), str(e)
        else:
            raise AssertionError(f"rank_gbps={bad} accepted")


def scenario_relays(rank, world):
    """Relayed plans (nodes of 2 GPUs, NVLink at 4 chunks a tick) run byte-
    equal to torch's: chunks forwarded through staging buffers, in rows and
    in bytes (chunks that cut rows)."""
    rows = skewed_rows(world, 61)
    for trailing, dtype, chunk in (((3,), torch.float32, None), ((), torch.int8, 7)):
        inp = make_input(rows, rank, trailing, dtype, 700)
        want, out_rows = reference(inp, rows, rank, world)
        got = torch.full_like(want, 5)
        tt.all_to_all_single(got, inp, out_rows, rows[rank], gpus_per_node=2, nvlink_speedup=4, chunk_bytes=chunk)
        assert same_bytes(got, want), f"relayed all_to_all_single ({dtype}) differs from torch's"
    plan = tt.plan_all_to_all(rows[rank], [rows[s][rank] for s in range(world)], gpus_per_node=2, nvlink_speedup=4)
    assert plan.runner == "relay" and plan.solution.verify(), plan.solution
    assert plan.ticks <= plan.solution.direct_ticks


def scenarios(rank, world):
    yield "a2a_skewed_1d_strict1", lambda: scenario_a2a(rank, world, 1, (), torch.float32, "STRICT1", None)
    yield "a2a_skewed_2d_chunks", lambda: scenario_a2a(rank, world, 2, (3,), torch.float32, "STRICT1", 20)
    yield "a2a_skewed_2d_r1w1_bf16", lambda: scenario_a2a(rank, world, 3, (5,), torch.bfloat16, "READ1_WRITE1", 7)
    yield "a2a_skewed_3d_int8", lambda: scenario_a2a(rank, world, 4, (2, 3), torch.int8, "STRICT1", 16)
    yield "a2a_even", lambda: scenario_even(rank, world)
    yield "plan_reuse_and_determinism", lambda: scenario_plan_reuse_and_determinism(rank, world)
    yield "bad_shape_raises_everywhere", lambda: scenario_bad_shape_raises_everywhere(rank, world)
    yield "split_mismatch", lambda: scenario_split_mismatch(rank, world)
    yield "remote_copy", lambda: scenario_remote_copy(rank, world)
    yield "remote_copy_mismatch", lambda: scenario_remote_copy_mismatch(rank, world)
    yield "rows_plan_any_row_size", lambda: scenario_rows_plan_any_row_size(rank, world)
    yield "rows_plan_mismatch", lambda: scenario_rows_plan_mismatch(rank, world)
    yield "rows_plan_arguments", lambda: scenario_rows_plan_arguments(rank, world)
    yield "copy_service", lambda: scenario_copy_service(rank, world)
    yield "copy_service_unpaired", lambda: scenario_copy_service_unpaired(rank, world)
    yield "replans_by_edits", lambda: scenario_replans_by_edits(rank, world)
    yield "subgroups", lambda: scenario_subgroups(rank, world)
    yield "runners_agree", lambda: scenario_runners_agree(rank, world)
    yield "relays", lambda: scenario_relays(rank, world)
    yield "rates", lambda: scenario_rates(rank, world)
    yield "posted_ahead", lambda: scenario_posted_ahead(rank, world)
    yield "posted_ahead_small_pieces", lambda: scenario_posted_ahead(rank, world, piece=16)


def worker(rank, world, port, outdir):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, timeout=TIMEOUT)
    results = {}
    try:
        for name, run in scenarios(rank, world):
            try:
                run()
                results[name] = "ok"
            except Exception:
                results[name] = traceback.format_exc()
            with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
                json.dump(results, f)
    finally:
        dist.destroy_process_group()
