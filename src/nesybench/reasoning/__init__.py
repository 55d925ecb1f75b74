"""Reasoning engines shared by every instrument: one prover, one forward chainer, one grammar."""
