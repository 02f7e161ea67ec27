"""``workbench converge``: a study re-run at tightened settings (:mod:`~workbench.converge.runner`)
and the verdict on each reported quantity (:mod:`~workbench.converge.verdict`)."""
