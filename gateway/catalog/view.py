"""One session's view of its catalog: the plan, what was activated, what to index."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import mcp_types as types

from gateway.catalog.merged import MergedCatalog
from indexing.api import catalog_documents as docs
from indexing.api.catalog_plan import CatalogPlan


@dataclass
class Activation:
    """Items a search or read made available, by kind ("tools", "prompts", "resources")."""

    tools: list[types.Tool] = field(default_factory=list)
    prompts: list[types.Prompt] = field(default_factory=list)
    resources: list[str] = field(default_factory=list)

    def kinds(self) -> list[str]:
        return [kind for kind in ("tools", "prompts", "resources") if getattr(self, kind)]

    def describe(self) -> str:
        """What to tell the agent: the items now available, tools with their schemas."""
        lines = []
        for tool in self.tools:
            schema = json.dumps(tool.input_schema, separators=(",", ":"), ensure_ascii=False)
            lines.append(f"- tool {tool.name}: {tool.description or ''}\n  input schema: {schema}")
        lines += [f"- prompt {prompt.name}" for prompt in self.prompts]
        lines += [f"- resource {uri}" for uri in self.resources]
        return "Now available in this session (call them by name):\n" + "\n".join(lines)


class CatalogView:
    """The catalog a client sees: the plan's visible items plus what it activated."""

    def __init__(self, catalog: MergedCatalog, plan: CatalogPlan | None) -> None:
        self.catalog = catalog
        self.plan = plan
        self.active_tools: dict[str, types.Tool] = {}
        self.active_prompts: dict[str, types.Prompt] = {}
        self.active_resources: dict[str, types.Resource | types.ResourceTemplate] = {}
        self._targets: dict[str, tuple[str, str]] = {}  # label -> (kind, exposed name/uri)

    def carry_over(self, previous: CatalogView) -> None:
        """Keep what an earlier view had activated (after the catalog was recomputed)."""
        if self.plan is None:
            return
        for name in previous.active_tools:
            if name in self.plan.deferred_tools:
                self.active_tools[name] = self.plan.deferred_tools[name]
        for name in previous.active_prompts:
            if name in self.plan.deferred_prompts:
                self.active_prompts[name] = self.plan.deferred_prompts[name]
        for uri in previous.active_resources:
            if uri in self.plan.deferred_resources:
                self.active_resources[uri] = self.plan.deferred_resources[uri]

    @property
    def activated_count(self) -> int:
        return len(self.active_tools) + len(self.active_prompts) + len(self.active_resources)

    def tools(self) -> list[types.Tool]:
        if self.plan is None:
            return self.catalog.tools
        return [*self.plan.tools, *self.active_tools.values()]

    def prompts(self) -> list[types.Prompt]:
        if self.plan is None:
            return self.catalog.prompts
        return [*self.plan.prompts, *self.active_prompts.values()]

    def resources(self) -> list[types.Resource]:
        if self.plan is None:
            return self.catalog.resources
        active = [r for r in self.active_resources.values() if isinstance(r, types.Resource)]
        return [*self.plan.resources, *active]

    def templates(self) -> list[types.ResourceTemplate]:
        if self.plan is None:
            return self.catalog.templates
        active = [
            r for r in self.active_resources.values() if isinstance(r, types.ResourceTemplate)
        ]
        return [*self.plan.templates, *active]

    def documents(self) -> list[tuple[str, str]]:
        """(label, text) of every catalog item to index, when the plan moved anything."""
        if self.plan is None or not self.plan.indexing:
            return []
        catalog, found = self.catalog, []
        for name, text in catalog.instructions.items():
            found.append((docs.server_label(name), docs.instructions_document(name, text)))
        for tool in catalog.tools:
            server, original = catalog.tool_names.resolve(tool.name)
            label = docs.tool_label(server, original)
            self._targets[label] = ("tool", tool.name)
            found.append((label, docs.tool_document(tool.name, tool)))
        for prompt in catalog.prompts:
            server, original = catalog.prompt_names.resolve(prompt.name)
            label = docs.prompt_label(server, original)
            self._targets[label] = ("prompt", prompt.name)
            found.append((label, docs.prompt_document(prompt.name, prompt)))
        for uri, item in self.plan.deferred_resources.items():
            server = self._resource_owner(uri)
            label = docs.resource_label(server, uri)
            self._targets[label] = ("resource", uri)
            found.append((label, docs.resource_document(uri, item)))
        return found

    def _resource_owner(self, uri: str) -> str:
        try:
            return self.catalog.resource_uris.resolve(uri)[0]
        except KeyError:
            return self.catalog.template_uris.resolve(uri)[0]

    def activate(self, labels: list[str]) -> Activation:
        """Activate the deferred items behind these labels; already visible ones are skipped."""
        activation = Activation()
        if self.plan is None:
            return activation
        for label in labels:
            kind, name = self._targets.get(label, ("", ""))
            if (
                kind == "tool"
                and name in self.plan.deferred_tools
                and name not in self.active_tools
            ):
                self.active_tools[name] = self.plan.deferred_tools[name]
                activation.tools.append(self.active_tools[name])
            elif kind == "prompt" and name in self.plan.deferred_prompts:
                if name not in self.active_prompts:
                    self.active_prompts[name] = self.plan.deferred_prompts[name]
                    activation.prompts.append(self.active_prompts[name])
            elif kind == "resource" and name not in self.active_resources:
                self.active_resources[name] = self.plan.deferred_resources[name]
                activation.resources.append(name)
        return activation
