"""The Python client of skillsd's gRPC API."""

from __future__ import annotations

import datetime as _dt
import functools
from typing import Iterator, Mapping, Optional, Sequence, Union

import grpc
from google.protobuf import timestamp_pb2

from skillsd_client._gen.skills.v1 import (
    catalog_service_pb2 as catalog_pb,
    catalog_service_pb2_grpc as catalog_grpc,
    content_service_pb2 as content_pb,
    content_service_pb2_grpc as content_grpc,
    file_service_pb2 as file_pb,
    file_service_pb2_grpc as file_grpc,
    routing_service_pb2 as routing_pb,
    routing_service_pb2_grpc as routing_grpc,
    script_service_pb2 as script_pb,
    script_service_pb2_grpc as script_grpc,
    types_pb2 as types_pb,
    usage_service_pb2 as usage_pb,
    usage_service_pb2_grpc as usage_grpc,
)
from skillsd_client.errors import from_rpc_error

__all__ = ["Client", "WholeFile"]


def _mapped(method):
    """Raises the SkillsError subclass of a failed call instead of grpc.RpcError."""

    @functools.wraps(method)
    def call(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None

    return call


def _stream(it):
    """A server stream whose failure raises a SkillsError."""
    try:
        yield from it
    except grpc.RpcError as err:
        if err.code() == grpc.StatusCode.CANCELLED:
            return
        raise from_rpc_error(err) from None


def _timestamp(t: Union[_dt.datetime, None]) -> Optional[timestamp_pb2.Timestamp]:
    if t is None:
        return None
    if t.tzinfo is None:
        raise ValueError("give an aware datetime (with tzinfo), e.g. datetime.now(timezone.utc)")
    ts = timestamp_pb2.Timestamp()
    ts.FromDatetime(t.astimezone(_dt.timezone.utc).replace(tzinfo=None))
    return ts


class WholeFile:
    """A whole file read with :meth:`Client.read_file`."""

    def __init__(self, first: file_pb.ReadSkillFileResponse, content: Union[str, bytes]):
        #: The first page's answer: size, digest, MIME type, resolved_from.
        self.info = first
        #: The text (a text file) or the bytes (a binary file).
        self.content = content

    @property
    def binary(self) -> bool:
        return self.info.binary


class Client:
    """A connection to skillsd (``skillsd --grpc ADDR``).

    Use it as a context manager, or call :meth:`close`::

        with Client("127.0.0.1:50051", token=os.environ["SKILLSD_TOKEN"]) as c:
            for skill in c.iter_skills():
                print(skill.skill_path)

    Args:
        target: the server's address (host:port, or any gRPC target).
        token: a bearer token sent with every call (skillsd --token-env,
            auth.mode token); None sends none.
        tls: False for plaintext (loopback or a private network); True for
            TLS with the system's roots; or ``grpc.ssl_channel_credentials(...)``.
        root_certificates: PEM bytes of the CA that signed the server's
            certificate (implies TLS).
        server_name: the name to check the server's certificate against,
            when it differs from the target's host.
        timeout: seconds each unary call may take (None: no limit).
        options: extra gRPC channel options.

    Every method returns the contract's messages (skills.v1, the ``pb``
    modules below) and raises a :class:`SkillsError` subclass on failure.
    The stubs stay reachable as ``catalog``, ``routing``, ``files``,
    ``scripts``, ``usage`` and ``content`` for anything this layer does not
    wrap.
    """

    def __init__(
        self,
        target: str,
        *,
        token: Optional[str] = None,
        tls: Union[bool, grpc.ChannelCredentials] = False,
        root_certificates: Optional[bytes] = None,
        server_name: Optional[str] = None,
        timeout: Optional[float] = 30.0,
        options: Sequence[tuple] = (),
    ):
        opts = list(options)
        if server_name:
            opts.append(("grpc.ssl_target_name_override", server_name))
        creds: Optional[grpc.ChannelCredentials] = None
        if isinstance(tls, grpc.ChannelCredentials):
            creds = tls
        elif tls or root_certificates:
            creds = grpc.ssl_channel_credentials(root_certificates=root_certificates)
        if token and creds is None:
            # A token over plaintext: grpc's call credentials require TLS, so
            # the header is added by an interceptor instead.
            self._channel = grpc.intercept_channel(grpc.insecure_channel(target, options=opts), _BearerInterceptor(token))
        elif creds is not None:
            if token:
                creds = grpc.composite_channel_credentials(creds, grpc.access_token_call_credentials(token))
            self._channel = grpc.secure_channel(target, creds, options=opts)
        else:
            self._channel = grpc.insecure_channel(target, options=opts)
        self._timeout = timeout
        self.catalog = catalog_grpc.CatalogServiceStub(self._channel)
        self.routing = routing_grpc.RoutingServiceStub(self._channel)
        self.files = file_grpc.FileServiceStub(self._channel)
        self.scripts = script_grpc.ScriptServiceStub(self._channel)
        self.usage = usage_grpc.UsageServiceStub(self._channel)
        self.content = content_grpc.ContentServiceStub(self._channel)

    # Lifetime.

    def close(self) -> None:
        """Closes the connection; streams in progress end."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # Catalog.

    @_mapped
    def list_skills(self, *, page_size: int = 0, page_token: str = "", query: str = "", include_body: bool = False,
                    category: str = "", tags: Sequence[str] = (), routable_only: bool = False) -> catalog_pb.ListSkillsResponse:
        """One page of skills, sorted by path."""
        req = catalog_pb.ListSkillsRequest(page_size=page_size, page_token=page_token, query=query, include_body=include_body,
                                           category=category, tags=list(tags), routable_only=routable_only)
        return self.catalog.ListSkills(req, timeout=self._timeout)

    def iter_skills(self, *, page_size: int = 100, **filters) -> Iterator[types_pb.Skill]:
        """Every skill matching the filters of :meth:`list_skills`, page by page."""
        token = filters.pop("page_token", "")
        while True:
            page = self.list_skills(page_size=page_size, page_token=token, **filters)
            yield from page.skills
            token = page.next_page_token
            if not token:
                return

    @_mapped
    def skill_tree(self, path: str = "") -> catalog_pb.GetSkillTreeResponse:
        """The catalog (or one sub-tree) as skills under their inheritance parents."""
        return self.catalog.GetSkillTree(catalog_pb.GetSkillTreeRequest(path=path), timeout=self._timeout)

    @_mapped
    def get_skill(self, path_or_name: str, *, skip_cache: bool = False) -> catalog_pb.GetSkillResponse:
        """One skill, loaded: content resolved with inheritance, files, frontmatter. Raises SkillNotFound."""
        return self.catalog.GetSkill(catalog_pb.GetSkillRequest(skill_path=path_or_name, skip_cache=skip_cache), timeout=self._timeout)

    @_mapped
    def diagnostics(self, *, min_severity: int = types_pb.SEVERITY_UNSPECIFIED, source: str = "", file_prefix: str = "") -> catalog_pb.ListDiagnosticsResponse:
        """The problems found while loading the catalog."""
        req = catalog_pb.ListDiagnosticsRequest(min_severity=min_severity, source=source, file_prefix=file_prefix)
        return self.catalog.ListDiagnostics(req, timeout=self._timeout)

    @_mapped
    def status(self) -> catalog_pb.GetCatalogStatusResponse:
        """The catalog's generation, counts and sources."""
        return self.catalog.GetCatalogStatus(catalog_pb.GetCatalogStatusRequest(), timeout=self._timeout)

    @_mapped
    def refresh(self) -> catalog_pb.RefreshSkillsResponse:
        """Synchronises git sources and reloads the catalog now."""
        return self.catalog.RefreshSkills(catalog_pb.RefreshSkillsRequest(), timeout=self._timeout)

    def watch(self) -> Iterator[catalog_pb.WatchCatalogResponse]:
        """The catalog's changes: first the current generation (initial), then
        one message per change, until the iterator is closed or the client is."""
        try:
            call = self.catalog.WatchCatalog(catalog_pb.WatchCatalogRequest())
        except grpc.RpcError as err:
            raise from_rpc_error(err) from None
        it = _stream(call)
        try:
            yield from it
        finally:
            call.cancel()

    # Routing.

    @_mapped
    def search(self, query: str, *, limit: int = 0, mode: int = routing_pb.SEARCH_MODE_UNSPECIFIED, category: str = "",
               tags: Sequence[str] = (), restated: Sequence[str] = (), **fields) -> routing_pb.SearchSkillsResponse:
        """The skills for a free-text query, best first; empty when nothing applies.
        restated: the caller's restatements of the query (at most 3, ranked
        mode), fused with it; each hit's phrasing says which one matched.
        Further request fields (as the contract grows) may be given by name."""
        req = routing_pb.SearchSkillsRequest(query=query, limit=limit, mode=mode, category=category, tags=list(tags),
                                             restated=list(restated), **fields)
        return self.routing.SearchSkills(req, timeout=self._timeout)

    @_mapped
    def match(self, context: str, *, restated: Sequence[str] = ()) -> routing_pb.MatchSkillResponse:
        """The match decision for a task: one skill, ambiguous, or no match;
        restated: the caller's restatements of the context (at most 3)."""
        req = routing_pb.MatchSkillRequest(context=context, restated=list(restated))
        return self.routing.MatchSkill(req, timeout=self._timeout)

    # Files.

    @_mapped
    def read_file_page(self, skill: str, file: str, *, offset: int = 0, max_bytes: int = 0, skip_cache: bool = False) -> file_pb.ReadSkillFileResponse:
        """One page of a skill's file (or an inherited asset)."""
        req = file_pb.ReadSkillFileRequest(skill_path=skill, file=file, offset=offset, max_bytes=max_bytes, skip_cache=skip_cache)
        return self.files.ReadSkillFile(req, timeout=self._timeout)

    def iter_file(self, skill: str, file: str, *, max_bytes: int = 0) -> Iterator[file_pb.ReadSkillFileResponse]:
        """Every page of a file, from the start."""
        offset = 0
        while True:
            page = self.read_file_page(skill, file, offset=offset, max_bytes=max_bytes)
            yield page
            if not page.truncated:
                return
            offset = page.next_offset

    def read_file(self, skill: str, file: str, *, max_bytes: int = 0) -> WholeFile:
        """A whole file: str for text, bytes for binary."""
        pages = list(self.iter_file(skill, file, max_bytes=max_bytes))
        first = pages[0]
        if first.binary:
            return WholeFile(first, b"".join(p.data for p in pages))
        return WholeFile(first, "".join(p.text for p in pages))

    # Scripts.

    @_mapped
    def run_script(self, skill: str, file: str, args: Optional[Mapping[str, str]] = None, *, cwd: str = "") -> script_pb.RunScriptResponse:
        """Runs a script the skill declares with execution "server"."""
        req = script_pb.RunScriptRequest(skill_path=skill, file=file, args=dict(args or {}), cwd=cwd)
        return self.scripts.RunScript(req, timeout=None)

    @_mapped
    def run_command(self, skill: str, command: str, args: Sequence[str] = ()) -> script_pb.RunCommandResponse:
        """Runs an allow-listed command in the skill's folder (commands.enabled)."""
        req = script_pb.RunCommandRequest(skill_path=skill, command=command, args=list(args))
        return self.scripts.RunCommand(req, timeout=None)

    # Usage.

    @_mapped
    def report_usage(self, skill: str, useful: bool, comment: str = "") -> usage_pb.ReportUsageResponse:
        """Records whether a skill helped."""
        return self.usage.ReportUsage(usage_pb.ReportUsageRequest(skill_path=skill, useful=useful, comment=comment), timeout=self._timeout)

    @_mapped
    def usage_stats(self, *, start: Optional[_dt.datetime] = None, end: Optional[_dt.datetime] = None, skill: str = "",
                    top_n: int = 0) -> usage_pb.GetUsageStatsResponse:
        """Aggregates over a window (default: the last 30 days). Raises NotSupported when analytics is off."""
        req = usage_pb.GetUsageStatsRequest(skill_path=skill, top_n=top_n)
        if start is not None:
            req.start_time.CopyFrom(_timestamp(start))
        if end is not None:
            req.end_time.CopyFrom(_timestamp(end))
        return self.usage.GetUsageStats(req, timeout=self._timeout)

    @_mapped
    def ingest_events(self, events: Sequence[types_pb.UsageEvent]) -> usage_pb.IngestEventsResponse:
        """Stores another server's events (a collector's intake), each id once."""
        return self.usage.IngestEvents(usage_pb.IngestEventsRequest(events=list(events)), timeout=self._timeout)

    # Agents and docs.

    @_mapped
    def list_agents(self) -> content_pb.ListAgentsResponse:
        return self.content.ListAgents(content_pb.ListAgentsRequest(), timeout=self._timeout)

    @_mapped
    def get_agent(self, name: str, *, skip_cache: bool = False) -> content_pb.GetAgentResponse:
        return self.content.GetAgent(content_pb.GetAgentRequest(name=name, skip_cache=skip_cache), timeout=self._timeout)

    @_mapped
    def list_docs(self) -> content_pb.ListDocsResponse:
        return self.content.ListDocs(content_pb.ListDocsRequest(), timeout=self._timeout)

    @_mapped
    def get_doc(self, *path: str, skip_cache: bool = False) -> content_pb.GetDocResponse:
        """A documentation page by its path segments: get_doc("guides", "setup")."""
        return self.content.GetDoc(content_pb.GetDocRequest(path=list(path), skip_cache=skip_cache), timeout=self._timeout)


class _BearerInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):
    """Adds authorization: Bearer <token> to every call of a plaintext channel."""

    def __init__(self, token: str):
        self._header = ("authorization", f"Bearer {token}")

    def _details(self, details):
        metadata = list(details.metadata or []) + [self._header]
        return _CallDetails(details.method, details.timeout, metadata, details.credentials, getattr(details, "wait_for_ready", None),
                            getattr(details, "compression", None))

    def intercept_unary_unary(self, continuation, client_call_details, request):
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation, client_call_details, request):
        return continuation(self._details(client_call_details), request)


class _CallDetails(grpc.ClientCallDetails):
    def __init__(self, method, timeout, metadata, credentials, wait_for_ready, compression):
        self.method = method
        self.timeout = timeout
        self.metadata = metadata
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.compression = compression
