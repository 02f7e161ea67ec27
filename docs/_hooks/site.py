"""MkDocs hooks of the documentation site (mkdocs.yml: ``hooks``).

* The API reference: one page ``api/<module>.md`` per module of ``extra.api_modules`` in
  mkdocs.yml (the one place to edit when modules move), holding the mkdocstrings directive
  ``::: <module>``, appended to the nav under "API reference".  The pages are made in memory;
  nothing is written into docs/.
* The home page includes the README (``docs/index.md``): its link to the changelog at the
  repository root points, on the site, at the page that includes it (``changelog.md``).
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


def on_page_markdown(markdown, page, config, files):
    if page.file.src_uri == "index.md":
        markdown = markdown.replace("](../CHANGELOG.md)", "](changelog.md)")
    return markdown
