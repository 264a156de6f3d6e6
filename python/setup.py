# The extension clsort._clsort is built by cffi in API mode against the project's lib/clsort.h and
# linked to its libclsort.so: see clsort/_build.py for where they are looked for.
from setuptools import setup

setup(cffi_modules=["clsort/_build.py:ffibuilder"])
