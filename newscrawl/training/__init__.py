"""Retrain the packaged block model from the dev datasets: `python -m newscrawl.training`.

Needs scikit-learn (a training-time dependency only); the runtime evaluates the exported trees
with numpy.
"""
