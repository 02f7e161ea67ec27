"""Plots of a spatial dynamics result (the dataset of :mod:`workbench.spatial.dataset`).

:func:`figures` draws, for whatever the dataset holds (``name``, what it shows):

* ``spatial_position.png`` -- per body, the centre-of-mass position x, y, z (world) against time;
* ``spatial_orientation.png`` -- per body, the Euler parameters e0..e3 and, on a second axis, the
  angle of the body-to-world rotation ``2 atan2(|(e1, e2, e3)|, |e0|)`` [deg];
* ``spatial_angular_velocity.png`` -- per body, the angular velocity in world axes and in body axes;
* ``spatial_joint_reaction.png`` -- per ideal joint, the constraint reaction force and moment on
  body j (world axes);
* ``spatial_joint_friction.png`` -- per joint with friction (Qi, Luo & Huang (2009)): the axial
  friction force (their eq. 25), the friction moment about the axis of each journal (eqs. 26, 53,
  55, 58) and the loads of the equivalent contact points F1, F2, g3, g4;
* ``spatial_clearance.png`` -- per clearance joint, the normal force and the penetration [µm] of
  each contact point, the contact starts marked;
* ``spatial_energy.png`` -- the energy books: kinetic, potential, dissipated, the drivers' work
  (and the clearance joints' contact work), and below them the balance ``E_kin + E_pot + E_diss
  (+ contact work) - W_drivers`` less its initial value, whose size says how well the run keeps
  its books.

Labels name the quantity with the unit stored on its variable (``units``, typeset by
:func:`workbench.results.figures.unit_text`; ``µm`` and ``nJ`` where values are scaled to be read
without an offset exponent), a quantity with a stored standard error (``X_stderr``) is drawn with its ±2 se
band, and every figure is saved by :func:`workbench.results.figures.save` (the format, width and
style in force).  :func:`plot_spatial` writes them into a folder; the kinds' plot call publishes
that folder's files under the rules of :mod:`workbench.results.plot_files` (a user's file is never
written over).  matplotlib is imported inside the functions (through ``new_figure``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..results.figures import axis_label, error_band, save, stderr_of, unit_text
from ..results.plot import DPI, PNG, envelope, new_figure

#: line colours of the x, y, z components and of the contact points / journals
_XYZ = ("tab:blue", "tab:orange", "tab:green")
_CYCLE = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple", "tab:brown")
#: text sizes relative to the style's font size (``--style paper``: 8 pt), not fixed points
_TITLE, _LEGEND, _SUPTITLE = "small", "x-small", "medium"
#: fixed margins [in] (as the planar plots: no constrained layout)
_LEFT, _RIGHT, _BOTTOM, _TOP, _GAP = 1.0, 0.9, 0.55, 0.7, 0.6


def is_spatial(ds) -> bool:
    """Whether ``ds`` is the dataset of a spatial run (``dimension = 3``)."""
    try:
        return int(ds.attrs.get("dimension", 2)) == 3
    except (TypeError, ValueError):
        return False


def _panels(n: int, *, width: float = 7.0, height: float = 2.6):
    total = max(height * n, 3.6)
    fig = new_figure(figsize=(width, total))
    panel = max((total - _TOP - _BOTTOM - _GAP * (n - 1)) / n, 0.1 * height)
    fig.subplots_adjust(left=_LEFT / width, right=1.0 - _RIGHT / width, bottom=_BOTTOM / total,
                        top=1.0 - _TOP / total, hspace=_GAP / panel)
    return fig, [fig.add_subplot(n, 1, i + 1) for i in range(n)]


def _font_points(size) -> float:
    """A relative font size (``"small"`` ...) in points under the settings in force."""
    from matplotlib.font_manager import FontProperties
    return FontProperties(size=size).get_size_in_points()


def _time(ds) -> tuple[np.ndarray, str]:
    """The abscissa: time in s for runs of a second or more, else in ms."""
    t = np.asarray(ds["time"].values, float)
    if t.size and t[-1] - t[0] >= 1.0:
        return t, "time [s]"
    return t * 1e3, "time [ms]"


def _line(ax, x, y, se=None, **kwargs):
    """``y(x)`` through its min/max envelope (no peak lost), with a ±2 se band when ``se`` is given."""
    width = max(int(ax.get_position().width * ax.figure.get_figwidth() * DPI), 1)
    line = ax.plot(*envelope(np.asarray(x), np.asarray(y, float), width), **kwargs)
    if se is not None:
        error_band(ax, x, y, np.asarray(se, float), color=line[0].get_color())
    return line


def _se(ds, name, **sel):
    se = stderr_of(ds, name)
    return None if se is None else se.sel(**sel).values


def _finish(fig, axes, xlabel, ds, what, *, loc="upper right"):
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=_LEGEND, loc=loc, ncol=2)
    axes[-1].set_xlabel(xlabel)
    import textwrap

    from ..results.figures import current
    title = ds.attrs.get("title", "")
    # wrapped to the width the figure is saved at (--width), sized by the style's text (--style paper)
    size = _font_points(_SUPTITLE)
    chars = max(int((current().width or fig.get_figwidth()) * 72 / (0.55 * size)), 20)
    text = "\n".join(textwrap.fill(part, chars) for part in ([what, title] if title else [what]))
    # the title's place in inches from the top (a fraction of a tall figure would reach the panel)
    fig.suptitle(text, fontsize=_SUPTITLE, y=1.0 - 0.08 / fig.get_figheight(), va="top")
    return fig


def _vectors(ds, name, dim, labels, what, *, titles=None):
    """One panel per entry of ``dim``: the x, y, z components of ``name``."""
    x, xlabel = _time(ds)
    fig, axes = _panels(len(labels))
    for i, (ax, key) in enumerate(zip(axes, labels)):
        da = ds[name].sel({dim: key})
        for comp, col in zip(("x", "y", "z"), _XYZ):
            _line(ax, x, da.sel(xyz=comp).values, _se(ds, name, **{dim: key, "xyz": comp}), color=col,
                  lw=1.0, label=comp)
        ax.set_ylabel(axis_label(ds[name]))
        ax.set_title(titles[i] if titles else f"{dim.replace('_', ' ')} {key}", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, what)


def position(ds):
    bodies = [str(b) for b in ds["body"].values]
    return _vectors(ds, "position", "body", bodies, "Centre-of-mass position (world axes)")


def orientation(ds):
    bodies = [str(b) for b in ds["body"].values]
    x, xlabel = _time(ds)
    fig, axes = _panels(len(bodies))
    for ax, b in zip(axes, bodies):
        q = ds["quaternion"].sel(body=b)
        for k, col in zip(q["quaternion_component"].values, _CYCLE):
            _line(ax, x, q.sel(quaternion_component=k).values, color=col, lw=1.0, label=str(k))
        ax.set_ylabel("Euler parameters [1]")
        ax.set_ylim(-1.05, 1.05)
        e = np.asarray(q.values, float)                        # (4, time)
        angle = np.degrees(2.0 * np.arctan2(np.linalg.norm(e[1:], axis=0), np.abs(e[0])))
        twin = ax.twinx()
        _line(twin, x, angle, color="k", lw=0.8, ls="--", label="rotation angle")
        twin.set_ylabel(unit_text("rotation angle [deg]"))
        twin.legend(fontsize=_LEGEND, loc="lower right")
        ax.set_title(f"body {b}", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, "Orientation (Euler parameters, body to world)")


def _xyz(ax, x, ds, name: str, **sel) -> None:
    """The x, y and z components of ``ds[name]`` at ``sel``, each with its standard-error band."""
    da = ds[name].sel(**sel)
    for comp, col in zip(("x", "y", "z"), _XYZ):
        _line(ax, x, da.sel(xyz=comp).values, _se(ds, name, xyz=comp, **sel), color=col, lw=1.0,
              label=comp)


def angular_velocity(ds):
    bodies = [str(b) for b in ds["body"].values]
    x, xlabel = _time(ds)
    fig, axes = _panels(2 * len(bodies))
    for i, b in enumerate(bodies):
        for ax, name, frame in ((axes[2 * i], "angular_velocity", "world axes"),
                                (axes[2 * i + 1], "angular_velocity_body", "body axes")):
            _xyz(ax, x, ds, name, body=b)
            ax.set_ylabel(unit_text(f"ω [{ds[name].attrs.get('units', '')}]"))
            ax.set_title(f"body {b}, {frame}", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, "Angular velocity")


def joint_reaction(ds):
    joints = [str(j) for j in ds["ideal_joint"].values]
    types = ([str(t) for t in ds["ideal_joint_type"].values] if "ideal_joint_type" in ds.coords
             else [""] * len(joints))
    x, xlabel = _time(ds)
    fig, axes = _panels(2 * len(joints))
    for i, (j, kind) in enumerate(zip(joints, types)):
        for ax, name, what in ((axes[2 * i], "joint_force", "force"), (axes[2 * i + 1], "joint_moment", "moment")):
            _xyz(ax, x, ds, name, ideal_joint=j)
            ax.set_ylabel(f"{what} [{unit_text(ds[name].attrs['units'])}]")
            ax.set_title(f"{j}{f' ({kind})' if kind else ''}: {what} on body j", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, "Joint reactions (world axes)")


def joint_friction(ds):
    joints = [str(j) for j in ds["friction_joint"].values]
    x, xlabel = _time(ds)
    fig, axes = _panels(3 * len(joints))
    for i, j in enumerate(joints):
        a_f, a_m, a_c = axes[3 * i: 3 * i + 3]
        _line(a_f, x, ds["joint_friction_force"].sel(friction_joint=j).values,
              _se(ds, "joint_friction_force", friction_joint=j), color=_CYCLE[0], lw=1.0, label="axial")
        a_f.set_ylabel(f"friction force [{unit_text(ds['joint_friction_force'].attrs['units'])}]")
        a_f.set_title(f"{j}: axial friction force on body j", fontsize=_TITLE)
        m = ds["joint_friction_moment"].sel(friction_joint=j)
        for k, col in zip(m["journal"].values, _CYCLE):
            v = m.sel(journal=k).values
            if k != m["journal"].values[0] and not np.any(v):
                continue                      # the second journal of a universal joint only
            _line(a_m, x, v, _se(ds, "joint_friction_moment", friction_joint=j, journal=k), color=col, lw=1.0,
                  label=f"about {k}")
        a_m.set_ylabel(f"friction moment [{unit_text(ds['joint_friction_moment'].attrs['units'])}]")
        a_m.set_title(f"{j}: friction moment about the joint axis", fontsize=_TITLE)
        c = ds["contact_load"].sel(friction_joint=j)
        for k, col in zip(c["contact_point"].values, _CYCLE):
            _line(a_c, x, c.sel(contact_point=k).values, _se(ds, "contact_load", friction_joint=j, contact_point=k),
                  color=col, lw=1.0, label=str(k))
        a_c.set_ylabel(f"contact load [{unit_text(ds['contact_load'].attrs['units'])}]")
        a_c.set_title(f"{j}: contact loads (radial F1, F2; axial g3, g4)", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, "Joint friction from the reactions (Qi, Luo & Huang (2009))")


def clearance(ds):
    points = [str(p) for p in ds["clearance_point"].values]
    joints = [str(j) for j in ds["joint"].values]
    x, xlabel = _time(ds)
    fig, axes = _panels(2 * len(joints))
    scale = 1e3 if xlabel.endswith("[ms]") else 1.0
    for i, j in enumerate(joints):
        a_f, a_p = axes[2 * i], axes[2 * i + 1]
        mine = [p for p in points if p.split(".")[0] == j]
        for p, col in zip(mine, _CYCLE):
            _line(a_f, x, ds["point_normal_force"].sel(clearance_point=p).values, color=col, lw=0.8,
                  label=p.split(".", 1)[1])
            _line(a_p, x, ds["point_penetration"].sel(clearance_point=p).values * 1e6, color=col, lw=0.8,
                  label=p.split(".", 1)[1])
        if "impact_time" in ds and ds.sizes.get("impact", 0):
            k = int(np.flatnonzero(ds["joint"].values == j)[0])
            starts = ds["impact_time"].values[ds["impact_joint"].values == k] * scale
            for t0 in starts:
                a_f.axvline(t0, color="0.6", lw=0.5, ls=":")
            if starts.size:
                a_f.plot([], [], color="0.6", lw=0.5, ls=":", label="contact start")
        a_p.axhline(0.0, color="k", lw=0.6)
        a_f.set_ylabel(f"normal force [{unit_text(ds['point_normal_force'].attrs['units'])}]")
        a_p.set_ylabel(unit_text("penetration [um]"))
        a_f.set_title(f"{j}: normal force per contact point", fontsize=_TITLE)
        a_p.set_title(f"{j}: penetration (negative: apart)", fontsize=_TITLE)
    return _finish(fig, axes, xlabel, ds, "Clearance-joint contacts")


#: the energy books' terms: (variable, label, sign in the balance)
_BOOKS = (("kinetic_energy", "kinetic", 1.0), ("potential_energy", "potential", 1.0),
          ("dissipated_energy", "dissipated (friction, dampers)", 1.0),
          ("contact_energy", "contact work (clearance joints)", 1.0),
          ("driver_work", "work of drivers and loads", -1.0))


def _energy_unit(largest: float) -> tuple[float, str]:
    """The display unit of an energy whose largest magnitude is ``largest`` [J]: its factor [J]
    and name (the values are scaled, no offset exponent at the axis end)."""
    for factor, unit in ((1.0, "J"), (1e-3, "mJ"), (1e-6, "µJ"), (1e-9, "nJ"), (1e-12, "pJ")):
        if largest >= factor:
            return factor, unit
    return 1e-15, "fJ"


def energy(ds):
    x, xlabel = _time(ds)
    fig, (ax, bal) = _panels(2)
    balance = np.zeros(ds.sizes["time"])
    for (name, label, sign), col in zip(_BOOKS, _CYCLE):
        if name not in ds:
            continue
        v = np.asarray(ds[name].values, float)
        balance += sign * v
        _line(ax, x, v, _se(ds, name), color=col, lw=1.0, label=label)
    ax.set_ylabel(f"energy [{unit_text(ds['kinetic_energy'].attrs['units'])}]")
    ax.set_title("energy books", fontsize=_TITLE)
    change = balance - balance[0]
    factor, unit = _energy_unit(float(np.nanmax(np.abs(change))) if change.size else 0.0)
    _line(bal, x, change / factor, color="k", lw=0.8)
    bal.set_ylabel(f"balance change [{unit}]")
    bal.set_title("change of E_kin + E_pot + E_diss (+ contact) - W", fontsize=_TITLE)
    return _finish(fig, [ax, bal], xlabel, ds, "Energy", loc="best")


def figures(ds) -> list[tuple[str, object]]:
    """``(file name, matplotlib Figure)`` of every plot that applies to the spatial dataset ``ds``."""
    out = []
    if ds.sizes.get("body", 0):
        out += [("spatial_position.png", position(ds)), ("spatial_orientation.png", orientation(ds)),
                ("spatial_angular_velocity.png", angular_velocity(ds))]
    if ds.sizes.get("ideal_joint", 0):
        out.append(("spatial_joint_reaction.png", joint_reaction(ds)))
    if ds.sizes.get("friction_joint", 0):
        out.append(("spatial_joint_friction.png", joint_friction(ds)))
    if ds.sizes.get("clearance_point", 0) and ds.sizes.get("joint", 0):
        out.append(("spatial_clearance.png", clearance(ds)))
    if "kinetic_energy" in ds:
        out.append(("spatial_energy.png", energy(ds)))
    return out


def plot_spatial(ds, outdir: str | Path) -> list[Path]:
    """Write every spatial plot of ``ds`` into ``outdir``; return the files written."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    return [save(fig, outdir / name, dpi=DPI, pil_kwargs=PNG) for name, fig in figures(ds)]
