"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

* The API reference: one page ``api/<module>.md`` per module of ``extra.api_modules`` in
  mkdocs.yml (the one place to edit when modules move), holding the mkdocstrings directive
  ``::: <module>``, appended to the nav under "API reference".  The pages are made in memory;
  nothing is written into docs/.
* README.md and CHANGELOG.md live at the repository root, where GitHub shows them; the site
  includes them as ``index.md`` and ``changelog.md``.  A link from any page to one of them (as a
  reader of the repository follows it) points, on the site, at the page that includes it.
"""
from __future__ import annotations

import os
import posixpath
import re

from mkdocs.structure.files import File

#: files at the repository root -> the site page that includes each
ROOT_PAGES = {"README.md": "index.md", "CHANGELOG.md": "changelog.md"}
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)\s]*)?\)")

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


def on_page_markdown(markdown, page, config, files):
    base = posixpath.dirname(page.file.src_uri)
    root = os.path.dirname(os.path.abspath(config.config_file_path))
    docs = os.path.relpath(config["docs_dir"], root).replace(os.sep, "/")   # "docs"

    def to_site_page(match):
        target, anchor = match.group(1), match.group(2) or ""
        if "://" in target:
            return match.group(0)
        path = posixpath.normpath(posixpath.join(docs, base, target))
        if path not in ROOT_PAGES:
            return match.group(0)
        return f"]({posixpath.relpath(ROOT_PAGES[path], base or '.')}{anchor})"

    return LINK.sub(to_site_page, markdown)
