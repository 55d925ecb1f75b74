"""The sentence grammars: English <-> logic terms, both directions, in two dialects.

Generators render with a dialect's ``render_*`` functions and parsers read with
:func:`~nesybench.reasoning.grammar.reading.parse_sentence` on the same tables, so every
generated sentence parses back to the atom or rule it came from (tested as a round trip over
generated corpora).  One module per job:

* :mod:`~nesybench.reasoning.grammar.sentence` -- what reading one sentence gives
  (``ParseResult``), the repair ``Lexicon`` and the rule variable, shared by both dialects;
* :mod:`~nesybench.reasoning.grammar.prontoqa` -- PrOntoQA's concept-chain English (rendering,
  parsing, the morphology of its nouns, the chain-of-thought steps models write around it);
* :mod:`~nesybench.reasoning.grammar.proofwriter` -- RuleTaker / ProofWriter's templated English
  (relations, "something ... it" rules, negated conditions);
* :mod:`~nesybench.reasoning.grammar.reading` -- a text in either dialect: one sentence by
  dialect, a paragraph split into sentences, a context read into a ``Theory``.

The logic terms themselves (atoms, rules, theories, negation) are
:mod:`nesybench.reasoning.terms`.
"""
