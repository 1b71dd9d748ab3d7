"""Build the compiled extraction loops; all other metadata lives in pyproject.toml."""

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

# Each module is the compiled twin of Python loops in newscrawl/extraction, which stay as the
# fallback and the test reference; its parts are .pxi files it includes:
#   _node_walk    the walks over libxml2's nodes: document._index_text, block_features'
#                 ancestor flags, metadata's element searches and the language guess's body-text
#                 sample, dynamic_noise's link-LCA search and candidate judging
#   _block_rows   word, keyword and character counts (block_features, word_tokens,
#                 block_hints, the language guess), block_features' table of per-block
#                 features, block_scorer's walk of the model's trees
#   _static_keys  static_noise's node keys, from a Document or straight from a tree
COMPILED_MODULES = ("_node_walk", "_block_rows", "_static_keys")

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
