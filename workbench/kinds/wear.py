"""Study kind ``wear``: the wear loop (:mod:`workbench.wear.loop`) into a resumable zarr store.

The loop writes its store row by row as it runs (so Ctrl-C keeps the completed updates and
``resume`` continues them).  A run from Python without ``out`` goes through a store in a new
temporary folder of our own, removed once the dataset is loaded: nothing is left on disk.
"""
from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..errors import WorkbenchError

SUFFIX = ".zarr"
RESUMABLE = True


def parse(doc: dict, *, registry, file, problems=None):
    """Wear studies are parsed by :func:`workbench.study.load.load_study_text` (``Study.wear``)."""
    return None


def progress_total(study) -> float | None:
    """Machine cycles the run covers."""
    return float(study.wear.cycles)


def describe(study) -> str:
    return f"wear study '{study.title}'"


def run(study, *, registry, out: str | Path | None = None, progress=None, resume: bool = False,
        overwrite: bool = False, note=None, max_updates: int | None = None):
    """Run the wear loop into the store ``out`` (a temporary one, removed, when ``None``).

    ``progress(p)`` after every update, and within an update's dynamics at each settling or
    averaging cycle (about every 0.1 s), with a :class:`~workbench.runtime.progress.Progress`
    record (a callback of three parameters gets ``(done, total, info)``); ``resume``/``overwrite``/``note``: see
    :func:`workbench.wear.loop.run_wear_study`.  An interrupted run's error carries ``kept``:
    the sentence saying which updates the store keeps.
    """
    from ..wear.loop import run_wear_study
    from ..wear.spatial_study import is_spatial_wear, run_study
    if is_spatial_wear(study):   # worn maps of a spatial mechanism's bearings
        run_wear_study = run_study
    from ..runtime.progress import Clock, Progress, caller
    report, clock, count = caller(progress), Clock(), [0]

    def each_update(done, total, dN, depth):
        report(Progress(done=done, total=total, phase="update", update=count[0], cycle_jump=dN,
                        max_depth=depth, elapsed=clock.elapsed(),
                        info=f"update {count[0]}: dN {dN:,.0f}, max depth {depth * 1e6:.3g} µm"))
        count[0] += 1

    def each_stage(update, done, text):
        count[0] = update
        report(Progress(done=done, total=study.wear.cycles, phase="dynamics", update=update,
                        elapsed=clock.elapsed(), info=text))

    def each_cycle(update, done, positions):
        from ..wear.progress import describe
        first = positions[min(positions)]
        report(Progress(done=done, total=study.wear.cycles, phase=first.phase, update=update,
                        cycle=first.cycle, of=first.of, elapsed=clock.elapsed(),
                        chains=tuple((p.phase, p.cycle, p.of) for p in positions.values())
                        if len(positions) > 1 else (),
                        info=f"update {update}: {describe(positions)}"))

    on = progress is not None
    kw = dict(registry=registry, progress=each_update if on else None, stage=each_stage if on else None,
              within=each_cycle if on else None, note=note, max_updates=max_updates)
    if out is None:
        if resume or overwrite:
            raise WorkbenchError("resume/overwrite need the wear store to continue or replace: give out")
        tmp = Path(tempfile.mkdtemp(prefix="workbench-wear-"))
        try:
            return run_wear_study(study, out=tmp / "wear.zarr", **kw)   # open_store: loaded
        finally:
            shutil.rmtree(tmp, ignore_errors=True)   # safe: the temporary folder made just above
    out = Path(out)
    try:
        return run_wear_study(study, out=out, resume=resume, overwrite=overwrite, **kw)
    except (KeyboardInterrupt, Exception) as exc:
        from ..runtime.interrupts import is_interrupt
        if not is_interrupt(exc):
            raise
        from ..wear.store import completed_updates
        n = completed_updates(out) if out.is_dir() else 0
        exc.kept = (f"{out} keeps its {n} completed updates (run_status 'interrupted'); continue "
                    f"with --resume" if n else "no update was completed; nothing was kept")
        raise


def write(ds, out: str | Path) -> Path:
    """Write a finished wear result as a new zarr store at ``out`` (never over an existing path)."""
    out = Path(out)
    if out.exists():
        raise WorkbenchError(f"cannot write the wear result to {out}: the path exists, and a finished "
                             f"dataset is only written to a new path")
    tmp = out.with_name(f".{out.name}.tmp")
    try:
        ds.to_zarr(str(tmp), mode="w-", consolidated=False)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)   # safe: our own temporary store beside the output
        raise
    return out


def summary(ds) -> dict:
    """Updates, cycles done and, per worn joint, the final worn volumes [m^3] and deepest wear [m]:
    bushing and journal of a revolute joint, guide and slider of a translational one."""
    joints = {}
    if "joint" in ds.dims:
        for j in ds["joint"].values:
            vol = ds["wear_volume"].sel(joint=j).isel(cycle=-1)
            depth = ds["max_wear_depth"].sel(joint=j).isel(cycle=-1)
            joints[str(j)] = {"wear_volume_bushing": float(vol.sel(surface="bushing")),
                              "wear_volume_journal": float(vol.sel(surface="journal")),
                              "wear_volume_units": "m^3",
                              "deepest_wear": float(depth.max()), "deepest_wear_units": "m"}
    if "guide_joint" in ds.dims:
        for j in ds["guide_joint"].values:
            vol = ds["guide_wear_volume"].sel(guide_joint=j).isel(cycle=-1)
            depth = ds["guide_max_wear_depth"].sel(guide_joint=j).isel(cycle=-1)
            joints[str(j)] = {"wear_volume_guide": float(vol.sel(guide_part="guide")),
                              "wear_volume_slider": float(vol.sel(guide_part="slider")),
                              "wear_volume_units": "m^3",
                              "deepest_wear": float(depth.max()), "deepest_wear_units": "m"}
    return {"updates": int(ds.sizes["cycle"]), "cycles": float(ds["cycle"].values[-1]), "joints": joints}


def summary_lines(ds) -> list[str]:
    s = summary(ds)
    lines = [f"  {s['updates']} updates, {s['cycles']:,.0f} cycles"]
    for j, v in s["joints"].items():
        parts = ("guide", "slider") if "wear_volume_guide" in v else ("bushing", "journal")
        lines.append(f"  joint {j}: wear volume {parts[0]} {v['wear_volume_' + parts[0]]:.4g} m^3, {parts[1]} "
                     f"{v['wear_volume_' + parts[1]]:.4g} m^3; deepest {v['deepest_wear'] * 1e6:.4g} um")
    return lines


def plots(ds, outdir: str | Path) -> list[Path]:
    from ..wear.spatial_plot import is_map, plot_maps
    if is_map(ds):
        return plot_maps(ds, outdir)
    from ..wear.plot import plot_wear
    return plot_wear(ds, outdir)


def recognise(ds) -> bool:
    return ("wear_depth" in ds or "guide_wear_depth" in ds) and "cycle" in ds.dims

