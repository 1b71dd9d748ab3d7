"""Build the compiled extraction loops; all other metadata lives in pyproject.toml."""

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

# Each module is the compiled twin of a Python loop in newscrawl/extraction, which stays as the
# fallback and the test reference:
#   _text_walk      document._index_text and block_features._ancestor_flags
#   _metadata_scan  metadata's element searches and the language guess's body-text sample
#   _dynamic_lca    dynamic_noise's link-LCA search and candidate judging
#   _text_scan      word, keyword and character counts of block_features and relevance
#   _static_keys    static_noise's node keys
#   _block_trees    block_scorer's walk of the model's trees
#   _feature_rows   block_features' table of per-block features
COMPILED_MODULES = (
    "_text_walk",
    "_metadata_scan",
    "_dynamic_lca",
    "_text_scan",
    "_static_keys",
    "_block_trees",
    "_feature_rows",
)

# The modules read lxml's object layout from its headers, so they are built against the lxml
# major version the runtime pins (pyproject.toml: build-system requires and dependencies).
EXTENSIONS = [
    Extension(
        f"newscrawl.extraction.{name}",
        [f"newscrawl/extraction/{name}.pyx"],
        include_dirs=lxml.get_include(),
    )
    for name in COMPILED_MODULES
]

setup(ext_modules=cythonize(EXTENSIONS, language_level=3))
