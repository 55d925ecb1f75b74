"""The digit pipeline of the shortcuts instrument: MNIST-Addition on real handwritten digits.

The concept-net pipeline (binary concepts, :mod:`nesybench.shortcuts.pipeline`) and this one
share the instrument's registry (:mod:`nesybench.shortcuts.artifacts`), its claims, summaries
and report; everything only the digits need lives here:

==============  ===========================================================================
``tasks``       the digit task: image pools, tuples with gold digits, its certificate
``nesy``        the neuro-symbolic digit model (shared encoder, label through the knowledge)
``baselines``   the neural baseline without concepts (pixels straight to ``y``)
``evaluation``  one model's panel, map, shortcut flag and confusion; the categorical counter
``sweep``       the mitigation sweep, one block of seeds at a time: train, score, calibrate
``stages``      the digit stage functions (generate / train / score / calibrate ``digits``)
                and the digit halves of the two aggregates
``report``      the digit part of the shortcuts report
==============  ===========================================================================
"""
