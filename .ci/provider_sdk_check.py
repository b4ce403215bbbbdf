#!/usr/bin/env python3
"""Every example tool's export, in each form, checked with the model providers' own Python SDKs.

Offline: no API call is made, no key is needed; only the SDKs' models and schema helpers run.

    python3 .ci/provider_sdk_check.py [--no-install] [path/to/manifest]

Installs `openai`, `anthropic` and `google-genai` from PyPI with pip (unless `--no-install`),
prints the definitions of the example tools (`examples/manifest.rs`, `--provider NAME`; the
example binary when its path is given, else `cargo run --example manifest`) in the five forms of
issue 38, and checks each definition:

- OpenAI, strict and non-strict, Chat Completions and Responses: the SDK's pydantic models
  (`ChatCompletionFunctionTool`, `FunctionDefinition`, `responses.FunctionTool`) accept it with
  no key they lack; strict: the SDK's own strict-schema helper (`_ensure_strict_json_schema`,
  what `pydantic_function_tool` applies) leaves the `parameters` unchanged.
- Anthropic, strict and non-strict: the SDK's `ToolParam` accepts it with no key it lacks, and
  `input_schema` is an object with no `allOf`/`anyOf`/`oneOf` at the top; strict: `"strict":
  true`, and the SDK's strict transform (`transform_schema`, which moves every keyword strict
  mode refuses into the description) leaves `input_schema` unchanged.
- Gemini `parameters` and `parametersJsonSchema`: the SDK's `FunctionDeclaration` (which
  forbids unknown fields, and reads `parameters` as its OpenAPI `Schema`) accepts it; the
  `parametersJsonSchema` also validates as the SDK's `JSONSchema` type (unknown keywords refused).

A self-test first shows each check refusing a definition the provider refuses. Exit status 0
when every definition passes, 1 otherwise (each failure listed).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["openai", "anthropic", "google-genai"]

# (what is printed, the manifest's arguments, the check)
FORMS = [
    ("openai strict", ["--provider", "openai"], "openai-chat"),
    ("openai non-strict", ["--provider", "openai", "--non-strict"], "openai-chat"),
    ("openai-responses strict", ["--provider", "openai-responses"], "openai-responses"),
    ("openai-responses non-strict", ["--provider", "openai-responses", "--non-strict"], "openai-responses"),
    ("anthropic strict", ["--provider", "anthropic"], "anthropic"),
    ("anthropic non-strict", ["--provider", "anthropic", "--non-strict"], "anthropic"),
    ("gemini parameters", ["--provider", "gemini"], "gemini"),
    ("gemini parametersJsonSchema", ["--provider", "gemini-json-schema"], "gemini"),
]


def install() -> None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", *PACKAGES], check=True)


def exported(manifest: str | None, args: list[str]) -> list[dict]:
    if manifest:
        cmd = [manifest, *args]
    else:
        cmd = ["cargo", "run", "--quiet", "-j2", "--example", "manifest", "--", *args]
    out = subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def model_keys(model) -> set[str]:
    """The JSON keys a pydantic model declares (its aliases where it has them)."""
    return {f.alias or name for name, f in model.model_fields.items()}


def unknown_keys(d: dict, allowed: set[str]) -> list[str]:
    return sorted(set(d) - allowed)


# ---------------------------------------------------------------------------------------------
# The checks: each returns the problems of one definition ([] when it passes).


def check_openai(tool: dict, api: str) -> list[str]:
    from openai.lib._pydantic import _ensure_strict_json_schema
    from openai.types.chat import ChatCompletionFunctionTool
    from openai.types.responses import FunctionTool
    from openai.types.shared import FunctionDefinition

    problems = []
    try:
        if api == "openai-chat":
            ChatCompletionFunctionTool.model_validate(tool)
            fn = tool["function"]
            FunctionDefinition.model_validate(fn)
            problems += [f"unknown key {k}" for k in unknown_keys(tool, model_keys(ChatCompletionFunctionTool))]
            problems += [f"unknown key function.{k}" for k in unknown_keys(fn, model_keys(FunctionDefinition))]
        else:
            FunctionTool.model_validate(tool)
            fn = tool
            problems += [f"unknown key {k}" for k in unknown_keys(tool, model_keys(FunctionTool))]
    except Exception as e:  # pydantic.ValidationError, KeyError
        return [f"the SDK's model refuses it: {e}"]
    params = fn.get("parameters", {})
    for k in ("allOf", "anyOf", "oneOf", "enum", "const", "not"):
        if k in params:
            problems.append(f"parameters has {k} at the top level")
    if fn.get("strict"):
        ensured = _ensure_strict_json_schema(copy.deepcopy(params), path=(), root=copy.deepcopy(params))
        if ensured != params:
            problems.append(
                "the SDK's strict-schema helper changes the parameters:\n"
                f"  sent:     {json.dumps(params, sort_keys=True)}\n"
                f"  strict:   {json.dumps(ensured, sort_keys=True)}"
            )
    return problems


def without_type_beside_literals(schema):
    """`schema` with `type` left out of each node that has an `enum` or a `const`: the SDK's strict
    transform writes such a node so (the values say the type), and takes it either way."""
    if isinstance(schema, list):
        return [without_type_beside_literals(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: without_type_beside_literals(v) if k not in ("enum", "const", "default") else v
           for k, v in schema.items()}
    if ("enum" in out or "const" in out) and "type" in out:
        del out["type"]
    return out


def check_anthropic(tool: dict) -> list[str]:
    import pydantic
    from anthropic.lib._parse._transform import transform_schema
    from anthropic.types import ToolParam

    problems = []
    try:
        pydantic.TypeAdapter(ToolParam).validate_python(tool)
    except Exception as e:
        return [f"the SDK's ToolParam refuses it: {e}"]
    problems += [f"unknown key {k}" for k in unknown_keys(tool, set(ToolParam.__annotations__))]
    schema = tool.get("input_schema", {})
    if schema.get("type") != "object":
        problems.append("input_schema is not of type object")
    for k in ("allOf", "anyOf", "oneOf"):
        if k in schema:
            problems.append(f"input_schema has {k} at the top level")
    if tool.get("strict"):
        try:
            transformed = transform_schema(copy.deepcopy(schema))
        except Exception as e:
            return problems + [f"the SDK's strict transform refuses input_schema: {e}"]
        if transformed != without_type_beside_literals(schema):
            problems.append(
                "the SDK's strict transform changes input_schema:\n"
                f"  sent:     {json.dumps(schema, sort_keys=True)}\n"
                f"  strict:   {json.dumps(transformed, sort_keys=True)}"
            )
    return problems


def check_gemini(decl: dict) -> list[str]:
    from google.genai import types

    try:
        types.FunctionDeclaration.model_validate(decl)
        if "parametersJsonSchema" in decl:
            if "parameters" in decl:
                return ["parameters and parametersJsonSchema are mutually exclusive"]
            types.JSONSchema.model_validate(decl["parametersJsonSchema"])
    except Exception as e:
        return [f"the SDK's model refuses it: {e}"]
    return []


def check(kind: str, tool: dict) -> list[str]:
    if kind == "anthropic":
        return check_anthropic(tool)
    if kind == "gemini":
        return check_gemini(tool)
    return check_openai(tool, kind)


# ---------------------------------------------------------------------------------------------


def self_test() -> list[str]:
    """Each check refuses what its provider refuses (so their silence below means something)."""
    bad = [
        # Strict: an optional property left out of `required`.
        ("openai-chat", {"type": "function", "function": {"name": "f", "strict": True, "parameters": {
            "type": "object", "properties": {"a": {"type": "string"}}, "required": [],
            "additionalProperties": False}}}),
        # A top-level allOf (refused in either mode).
        ("openai-responses", {"type": "function", "name": "f", "strict": False, "parameters": {
            "type": "object", "properties": {}, "allOf": [{"required": ["a"]}]}}),
        # Strict: a minimum (Anthropic's strict mode refuses numeric bounds).
        ("anthropic", {"name": "f", "strict": True, "input_schema": {
            "type": "object", "properties": {"a": {"type": "integer", "minimum": 1}},
            "additionalProperties": False}}),
        # A top-level anyOf.
        ("anthropic", {"name": "f", "input_schema": {"type": "object", "anyOf": [{"required": ["a"]}]}}),
        # Gemini's Schema has no const, and one type name, not a list.
        ("gemini", {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "string", "const": "x"}}}}),
        ("gemini", {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": ["string", "null"]}}}}),
        # Its JSONSchema has no allOf.
        ("gemini", {"name": "f", "parametersJsonSchema": {"type": "object", "properties": {},
                                                           "allOf": [{"required": ["a"]}]}}),
        # A key the declaration does not have.
        ("gemini", {"name": "f", "strict": True}),
    ]
    failures = []
    for kind, tool in bad:
        if not check(kind, tool):
            failures.append(f"self-test: the {kind} check passes a definition its provider refuses: {tool}")
    good = ("anthropic", {"name": "f", "strict": True, "input_schema": {
        "type": "object", "properties": {"a": {"type": "integer", "description": "Must be from 1 to 9."}},
        "required": ["a"], "additionalProperties": False}})
    if check(*good):
        failures.append(f"self-test: the anthropic check refuses a strict definition: {check(*good)}")
    return failures


def main() -> int:
    argv = sys.argv[1:]
    if "--no-install" in argv:
        argv.remove("--no-install")
    else:
        install()
    manifest = argv[0] if argv else None
    import anthropic
    import google.genai
    import openai

    print(f"openai {openai.__version__}, anthropic {anthropic.__version__}, google-genai {google.genai.__version__}")
    failures = self_test()
    checked = 0
    for label, args, kind in FORMS:
        tools = exported(manifest, args)
        if not tools:
            failures.append(f"{label}: no tool exported")
        for tool in tools:
            name = tool.get("name") or tool.get("function", {}).get("name")
            for p in check(kind, tool):
                failures.append(f"{label}: {name}: {p}")
            checked += 1
        print(f"{label}: {len(tools)} tools")
    for f in failures:
        print(f"FAIL {f}")
    print(f"{checked} definitions checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
