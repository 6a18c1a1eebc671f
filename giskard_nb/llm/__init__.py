"""The LLM layer: every call to a language or embedding model goes through here (and through litellm).
May import: errors, config, secrets and core.

- ``Generator`` / ``Completion``: chat completions with structured outputs, retries, rate limits, timeout.
- ``BaseGenerator`` / ``GenerationParams`` and the typed messages of ``llm.types`` (``ChatMessage``,
  ``CompletionResponse``...): an in-process model in the giskard-agents spelling (same seam as Generator).
- ``set_default_generator`` / ``get_default_generator`` and the embedding twins: what checks use.
- ``OfflineEmbeddingModel`` (default, no network) and ``EmbeddingModel`` (any litellm embedding model).
- ``WithGeneratorMixin`` / ``WithEmbeddingMixin``: a ``generator`` / ``embedding_model`` field whose None
  means "the default, looked up at use time". Generators and embedding models save and load by ``kind``.
- ``recording(path, mode)``: record/replay model and agent calls; ``clear_cache()``/``cache_info()``: the
  SQLite response cache; ``track_usage()``: tokens and cost of a block of code.
- ``TemplateReference`` / ``register_template_folder``: prompt files rendered in a Jinja sandbox.
- Errors: ``LLMRateLimitError``, ``LLMTimeoutError``, ``LLMConnectionError``, ``LLMServerError``,
  ``LLMAuthError``, ``LLMBadRequestError``, ``LLMResponseError``, ``LLMReplayMissError`` (all ``LLMError``).

Importing this package does not import litellm; the first model call does (it takes a few seconds).
"""

from giskard_nb.llm._litellm import model_prices
from giskard_nb.llm.base_generator import BaseGenerator
from giskard_nb.llm.cache import cache_info, clear_cache
from giskard_nb.llm.embeddings import (
    BaseEmbeddingModel,
    EmbeddingModel,
    Embeddings,
    OfflineEmbeddingModel,
)
from giskard_nb.llm.errors import (
    LLMAuthError,
    LLMBadRequestError,
    LLMConnectionError,
    LLMError,
    LLMRateLimitError,
    LLMReplayMissError,
    LLMResponseError,
    LLMServerError,
    LLMTimeoutError,
)
from giskard_nb.llm.generator import Completion, Generator
from giskard_nb.llm.mixins import WithEmbeddingMixin, WithGeneratorMixin
from giskard_nb.llm.recording import Recorder, recording
from giskard_nb.llm.settings import (
    get_default_embedding_model,
    get_default_generator,
    set_default_embedding_model,
    set_default_generator,
)
from giskard_nb.llm.templates import (
    TemplateError,
    TemplateLimitError,
    TemplateReference,
    register_template_folder,
    render_messages,
)
from giskard_nb.llm.types import (
    AssistantMessage,
    ChatMessage,
    Choice,
    CompletionResponse,
    GenerationParams,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from giskard_nb.llm.usage import UsageTracker, track_usage

__all__ = [
    "AssistantMessage",
    "BaseEmbeddingModel",
    "BaseGenerator",
    "ChatMessage",
    "Choice",
    "CompletionResponse",
    "Completion",
    "EmbeddingModel",
    "Embeddings",
    "GenerationParams",
    "Generator",
    "LLMAuthError",
    "LLMBadRequestError",
    "LLMConnectionError",
    "LLMError",
    "LLMRateLimitError",
    "LLMReplayMissError",
    "LLMResponseError",
    "LLMServerError",
    "LLMTimeoutError",
    "OfflineEmbeddingModel",
    "Recorder",
    "SystemMessage",
    "TemplateError",
    "TemplateLimitError",
    "TemplateReference",
    "ToolMessage",
    "UsageTracker",
    "UserMessage",
    "WithEmbeddingMixin",
    "WithGeneratorMixin",
    "cache_info",
    "clear_cache",
    "get_default_embedding_model",
    "get_default_generator",
    "model_prices",
    "recording",
    "register_template_folder",
    "render_messages",
    "set_default_embedding_model",
    "set_default_generator",
    "track_usage",
]
