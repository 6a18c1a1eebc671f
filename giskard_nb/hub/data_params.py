"""Check params that come from data never choose where a model is reached or with which credentials.

A test case's check params (``{"identifier": "correctness", "params": {...}}``) come from a dataset, an
upload, an import or a database row: hostile input. Left unchecked, a shared dataset could point the
judge at its own server (``generator.api_base``: litellm then sends the user's ``OPENAI_API_KEY``), or
name a credential (``api_key: "${AWS_SECRET_ACCESS_KEY}"``, another record's ``${secret:<id>}``) for the
Hub to resolve and send. ``refuse_data_configuration`` refuses such params with a clear error:

- any key that names a secret (``api_key``, ``Authorization``, ``*_token``...: ``giskard_nb.secrets``)
  or an endpoint, transport or callback (``api_base``, ``base_url``, ``headers``, ``extra_headers``,
  ``success_callback``...), at any depth;
- a model (``generator``, ``embedding_model``) given as a dict with a key outside a short allow-list
  (the model name, sampling and retry settings), or a model name that is not a plain
  ``provider/model`` string (no URL).

Endpoints and credentials are honoured from the user's code (``set_default_generator(...)``,
``Generator(api_base=..., api_key=...)``), the environment, and explicit Hub configuration (a project
check made with ``hub.checks.create``). References in data params (``${VAR}``, ``${secret:<id>}``) are
never resolved (``check_specs.build_check`` resolves them only in project checks).
"""

from __future__ import annotations

import re
from typing import Any

from giskard_nb.errors import GiskardValidationError
from giskard_nb.secrets import is_secret_name

__all__ = ["DATA_CONFIGURATION_ERROR", "refuse_data_configuration", "resolve_sealed_digests"]

#: The error every refused key is reported with (what to do instead included).
DATA_CONFIGURATION_ERROR = (
    "datasets cannot configure endpoints or credentials; configure the judge in code: "
    "set_default_generator(...) (or a project check: hub.checks.create(..., "
    "params={'type': ..., 'generator': ...}))"
)

#: Keys that choose where a request goes, what it carries or what runs around it (litellm and httpx).
_ENDPOINT_KEYS = frozenset(
    {
        "api_base",
        "base_url",
        "api_version",
        "api_type",
        "url",
        "endpoint",
        "host",
        "headers",
        "extra_headers",
        "extra_query",
        "extra_body",
        "custom_llm_provider",
        "organization",
        "deployment_id",
        "proxy",
        "proxies",
        "client",
        "http_client",
        "litellm_params",
        "model_list",
        "user_config",
        "callbacks",
        "success_callback",
        "failure_callback",
        "logger_fn",
        "aws_region_name",
        "aws_profile_name",
        "aws_role_name",
        "aws_bedrock_runtime_endpoint",
        "vertex_project",
        "vertex_location",
        "azure_ad_token_provider",
    }
)
#: Check fields whose name looks secret but that hold no credential (sha256 digests a scan-regression
#: check compares replies against, never sent anywhere).
_NOT_CREDENTIALS = frozenset({"secret_digests"})
_DIGEST = re.compile(r"sha256:\d{1,6}:[0-9a-f]{64}")
_MODEL_FIELDS = frozenset({"generator", "embedding_model"})
#: What a dataset may set in a model dict: the model's name, sampling, limits and retries.
_MODEL_KEYS = frozenset(
    {
        "kind",
        "model",
        "temperature",
        "max_tokens",
        "timeout",
        "max_retries",
        "retry_base_delay",
        "retry_max_delay",
        "max_concurrency",
        "rpm",
        "cache",
        "native_structured_output",
        "dimensions",
        "batch_size",
        "params",
        # litellm sampling parameters (Generator moves unknown keys into ``params``)
        "top_p",
        "top_k",
        "seed",
        "stop",
        "presence_penalty",
        "frequency_penalty",
        "reasoning_effort",
        "max_completion_tokens",
    }
)
_PARAM_KEYS = _MODEL_KEYS - {"kind", "model", "params"}
#: A plain model name: ``provider/model`` segments, no scheme, no empty segment (so no URL).
_MODEL_NAME = re.compile(r"[\w.\-]+(?:/[\w.\-:@]+)*")
_MAX_MODEL_NAME = 200


def refuse_data_configuration(params: Any, *, what: str = "a test case's check") -> None:
    """Raise ``GiskardValidationError`` when data params configure an endpoint or a credential."""
    problem = _problem(params, "params")
    if problem is not None:
        raise GiskardValidationError(f"{what}: {problem} is refused: {DATA_CONFIGURATION_ERROR}")


def _problem(value: Any, where: str) -> str | None:
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{where}.{key}"
            if not isinstance(key, str):
                continue
            if key.lower() in _ENDPOINT_KEYS or (
                is_secret_name(key) and key not in _NOT_CREDENTIALS
            ):
                return here
            found = _model_problem(item, here) if key in _MODEL_FIELDS else _problem(item, here)
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = _problem(item, f"{where}[{i}]")
            if found is not None:
                return found
    return None


def _model_problem(value: Any, where: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return None if _plain_model_name(value) else f"{where} (model name {value[:80]!r})"
    if not isinstance(value, dict):
        return None  # not a model at all: the check's validation rejects it
    for key, item in value.items():
        if key not in _MODEL_KEYS:
            return f"{where}.{key}"
        if key == "model" and not _plain_model_name(item):
            return f"{where}.model ({str(item)[:80]!r})"
        if key == "params":
            if not isinstance(item, dict):
                return None  # the model's validation rejects it
            bad = next((k for k in item if k not in _PARAM_KEYS), None)
            if bad is not None:
                return f"{where}.params.{bad}"
    return _problem(value, where)


def _plain_model_name(value: Any) -> bool:
    return (
        isinstance(value, str)
        and len(value) <= _MAX_MODEL_NAME
        and _MODEL_NAME.fullmatch(value) is not None
    )


def resolve_sealed_digests(params: dict[str, Any]) -> dict[str, Any]:
    """``params`` with the digests the Hub sealed in its secrets file (``secret_digests`` is a
    secret-looking name, so its values are stored as ``${secret:<id>}``) read back. A reference is
    replaced only by a digest (``sha256:<length>:<hex>``): a dataset naming another record's secret
    (an agent's token) keeps the reference as written, and the check then errors on it."""
    from giskard_nb.hub.secret_store import resolve_secret_refs

    out = dict(params)
    for key in _NOT_CREDENTIALS & set(params):
        values = params[key]
        if isinstance(values, list):
            out[key] = [_digest_or_reference(v, resolve_secret_refs) for v in values]
    return out


def _digest_or_reference(value: Any, resolve: Any) -> Any:
    if not isinstance(value, str) or "${secret:" not in value:
        return value
    found = resolve(value, strict=False, what="a digest")
    return found if isinstance(found, str) and _DIGEST.fullmatch(found) else value
