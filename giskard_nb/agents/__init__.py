"""The giskard-agents import paths, for code ported from giskard-checks by changing ``giskard`` to
``giskard_nb`` in its imports: ``giskard_nb.agents.generators`` (``Generator``, ``BaseGenerator``,
``GenerationParams``), ``giskard_nb.agents.generators.base`` and ``giskard_nb.agents.embeddings``.
Each name is giskard-nb's own class (``giskard_nb.llm``), not a copy. See docs/porting.md. May import:
llm."""
