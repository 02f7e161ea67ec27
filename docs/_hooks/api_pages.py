"""MkDocs hook: one API-reference page per module of ``extra.api_modules`` in mkdocs.yml.

The list of modules lives in one place, mkdocs.yml; this hook makes a page ``api/<module>.md``
holding the mkdocstrings directive ``::: <module>`` for each, and appends them to the nav under
"API reference".  Nothing is written into docs/: the pages are generated in memory.
"""
from __future__ import annotations

from mkdocs.structure.files import File

SECTION = "API reference"


def _modules(config) -> list[str]:
    return list(config["extra"].get("api_modules", []))


def on_config(config):
    pages = [{m: f"api/{m}.md"} for m in _modules(config)]
    if pages and config["nav"] is not None:
        config["nav"].append({SECTION: pages})
    return config


def on_files(files, config):
    for module in _modules(config):
        text = f"# `{module}`\n\n::: {module}\n"
        files.append(File.generated(config, f"api/{module}.md", content=text))
    return files
