"""Parameter sweeps: the sweep file (:mod:`~workbench.sweeps.spec`), running the cases serially,
on forked local workers or on dask (:mod:`~workbench.sweeps.run`), their costs, the combined
summary and its plots."""
