"""One client's merged view of its upstreams: exposed names and the routes back."""

from __future__ import annotations

from dataclasses import dataclass, field

import mcp_types as types

from gateway.catalog.naming import ExposedMap
from gateway.catalog.upstream_listing import UpstreamListing
from gateway.sessions.identity import ClientIdentity
from indexing.api.catalog_plan import CatalogPlan, ServerCatalog, plan_catalog
from indexing.api.tool_results import index_tools, strip_output_schema
from localrouter.tool_names import TOOL_NAME_SEPARATOR

UNBOUNDED = 1 << 62
SEPARATORS = 64  # line breaks and headings around the per-server parts of the instructions


@dataclass
class MergedCatalog:
    """Tools, prompts and resources a client may see, renamed, with routes back."""

    tools: list[types.Tool] = field(default_factory=list)
    prompts: list[types.Prompt] = field(default_factory=list)
    resources: list[types.Resource] = field(default_factory=list)
    templates: list[types.ResourceTemplate] = field(default_factory=list)
    tool_names: ExposedMap = field(default_factory=ExposedMap)
    allowed_tools: frozenset[str] = frozenset()
    prompt_names: ExposedMap = field(default_factory=ExposedMap)
    resource_uris: ExposedMap = field(default_factory=ExposedMap)
    template_uris: ExposedMap = field(default_factory=ExposedMap)
    upstreams: list[str] = field(default_factory=list)
    instructions: dict[str, str] = field(default_factory=dict)
    titles: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)
    incomplete: dict[str, str] = field(default_factory=dict)
    """Upstreams that are served but some of whose lists failed, with which and why."""
    held: dict[str, list[str]] = field(default_factory=dict)
    """upstream -> its tools (and instructions) held until a superuser approves them."""

    def problems(self) -> dict[str, str]:
        """upstream -> why it, or some of its lists, is missing (for `_meta`)."""
        return {**self.unavailable, **self.incomplete}

    def route_tool(self, exposed: str) -> tuple[str, str] | None:
        """(upstream, tool) for an exposed tool name this client may call, else None."""
        return self.tool_names.resolve(exposed) if exposed in self.allowed_tools else None

    def route_prompt(self, exposed: str) -> tuple[str, str] | None:
        return self.prompt_names.resolve(exposed) if exposed in self.prompt_names else None

    def route_template(self, uri_template: str) -> tuple[str, str] | None:
        try:
            return self.template_uris.resolve(uri_template)
        except KeyError:
            return None

    def route_resource(self, uri: str) -> tuple[str, str] | None:
        """(upstream, original uri) for a listed URI, else by the longest template prefix."""
        try:
            return self.resource_uris.resolve(uri)
        except KeyError:
            pass
        best: tuple[int, tuple[str, str]] | None = None
        for template in self.templates:
            upstream, original = self.template_uris.resolve(template.uri_template)
            exposed_prefix = template.uri_template.split("{", 1)[0]
            if exposed_prefix and uri.startswith(exposed_prefix):
                original_uri = original.split("{", 1)[0] + uri[len(exposed_prefix) :]
                if best is None or len(exposed_prefix) > best[0]:
                    best = (len(exposed_prefix), (upstream, original_uri))
        return best[1] if best else None


def merge(identity: ClientIdentity, listings: dict[str, UpstreamListing]) -> MergedCatalog:
    """Build the catalog `identity` sees from the upstream listings."""
    catalog = MergedCatalog()
    visible = {n: lst for n, lst in sorted(listings.items()) if identity.may_use_upstream(n)}
    for name, listing in visible.items():
        if listing.error is not None:
            catalog.unavailable[name] = listing.error
        else:
            catalog.upstreams.append(name)
            if listing.title:
                catalog.titles[name] = listing.title
            if listing.instructions:
                catalog.instructions[name] = listing.instructions
            if listing.failed:
                catalog.incomplete[name] = listing.failure_text()
            held = [*sorted(listing.held), *(["instructions"] * bool(listing.held_instructions))]
            if held:
                catalog.held[name] = held
    live = {n: lst for n, lst in visible.items() if lst.error is None}

    tool_names = ExposedMap.build_names((n, t.name) for n, lst in live.items() for t in lst.tools)
    for name, listing in live.items():
        for tool in listing.tools:
            exposed = tool_names.exposed(name, tool.name)
            if identity.may_use_tool(exposed):
                catalog.tools.append(tool.model_copy(update={"name": exposed}))
    catalog.tool_names = tool_names
    catalog.allowed_tools = frozenset(t.name for t in catalog.tools)

    catalog.prompt_names = ExposedMap.build_names(
        (n, p.name) for n, lst in live.items() for p in lst.prompts
    )
    catalog.prompts = [
        p.model_copy(update={"name": catalog.prompt_names.exposed(n, p.name)})
        for n, lst in live.items()
        for p in lst.prompts
    ]

    catalog.resource_uris = ExposedMap.build_uris(
        {n: [str(r.uri) for r in lst.resources] for n, lst in live.items()}
    )
    catalog.resources = [
        r.model_copy(update={"uri": catalog.resource_uris.exposed(n, str(r.uri))})
        for n, lst in live.items()
        for r in lst.resources
    ]
    catalog.template_uris = ExposedMap.build_uris(
        {n: [t.uri_template for t in lst.templates] for n, lst in live.items()}
    )
    catalog.templates = [
        t.model_copy(update={"uri_template": catalog.template_uris.exposed(n, t.uri_template)})
        for n, lst in live.items()
        for t in lst.templates
    ]
    return catalog


def servers_of(catalog: MergedCatalog, *, strip_output: bool) -> list[ServerCatalog]:
    """The catalog split back into its upstreams, with exposed names."""
    servers = {name: ServerCatalog(name=name) for name in catalog.upstreams}
    for tool in catalog.tools:
        shown = strip_output_schema(tool) if strip_output else tool
        servers[catalog.tool_names.resolve(tool.name)[0]].tools.append(shown)
    for prompt in catalog.prompts:
        servers[catalog.prompt_names.resolve(prompt.name)[0]].prompts.append(prompt)
    for resource in catalog.resources:
        servers[catalog.resource_uris.resolve(str(resource.uri))[0]].resources.append(resource)
    for template in catalog.templates:
        servers[catalog.template_uris.resolve(template.uri_template)[0]].templates.append(template)
    for name, text in catalog.instructions.items():
        servers[name].instructions = text
    for name, title in catalog.titles.items():
        servers[name].title = title
    return list(servers.values())


def plan_for(identity: ClientIdentity, catalog: MergedCatalog) -> CatalogPlan | None:
    """The client's catalog plan, or None when indexing is off (the full catalog is shown)."""
    settings = identity.settings
    if not settings.indexing_enabled:
        return None
    threshold = settings.catalog_threshold if settings.catalog_indexing_enabled else UNBOUNDED
    header = "\n".join(instructions_header(catalog))
    return plan_catalog(
        servers_of(catalog, strip_output=True),
        threshold=threshold,
        fixed_tools=index_tools(settings.search_tool_name, settings.read_tool_name),
        fixed_bytes=len(header.encode()) + SEPARATORS,
        usage=dict(identity.tool_usage),
    )


def instructions_header(catalog: MergedCatalog) -> list[str]:
    """The lines every client's instructions start with: upstreams present and missing."""
    lines = [f"LocalRouter gateway. Tools are named '<upstream>{TOOL_NAME_SEPARATOR}<tool>'."]
    if catalog.upstreams:
        lines.append("Upstream servers: " + ", ".join(catalog.upstreams) + ".")
    else:
        lines.append("No upstream server is available to this client.")
    for name, error in catalog.unavailable.items():
        lines.append(f"Unavailable: {name} ({error}).")
    for name, failure in catalog.incomplete.items():
        lines.append(f"Incomplete: upstream {name!r}: {failure}.")
    for name, held in catalog.held.items():
        lines.append(f"Held for approval: upstream {name!r}: {', '.join(held)}.")
    return lines


def instructions_text(catalog: MergedCatalog, plan: CatalogPlan | None) -> str:
    """The gateway's `initialize` instructions: which upstreams are here, and theirs."""
    lines = instructions_header(catalog)
    if plan is not None and plan.directory:
        lines.append(plan.directory)
    texts = plan.instructions if plan is not None else catalog.instructions
    for name, text in texts.items():
        lines.append(f"\n## {name}\n{text.strip()}")
    return "\n".join(lines)
