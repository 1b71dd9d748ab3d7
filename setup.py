"""Build the compiled text walk; all other metadata lives in pyproject.toml."""

import lxml
from Cython.Build import cythonize
from setuptools import Extension, setup

# The extension reads lxml's object layout from its headers, so it is built against the lxml
# major version the runtime pins (pyproject.toml: build-system requires and dependencies).
TEXT_WALK = Extension(
    "newscrawl.extraction._text_walk",
    ["newscrawl/extraction/_text_walk.pyx"],
    include_dirs=lxml.get_include(),
)

setup(ext_modules=cythonize([TEXT_WALK], language_level=3))
