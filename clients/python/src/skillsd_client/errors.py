"""Exceptions raised by :class:`skillsd_client.Client`: one per ErrorReason.

Every error of the service carries a ``google.rpc.ErrorInfo`` (domain
``skillsd``) whose reason names what went wrong (``SKILL_NOT_FOUND``, ...).
The client raises the exception class of that reason, a subclass of
:class:`SkillsError`; a failure without a reason (the server unreachable, a
refused token) raises the class of its gRPC code.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Type

import grpc
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

__all__ = [
    "SkillsError",
    "SkillNotFound",
    "SkillDisabled",
    "FileNotFound",
    "InvalidPath",
    "FileTooLarge",
    "ScriptsDisabled",
    "ScriptNotDeclared",
    "ScriptNotServer",
    "MissingArguments",
    "ExtensionNotAllowed",
    "NoRunner",
    "RefreshInProgress",
    "UpstreamError",
    "Unauthorized",
    "Forbidden",
    "NotSupported",
    "CommandsDisabled",
    "CommandNotAllowed",
    "AgentNotFound",
    "DocNotFound",
    "IsolationUnavailable",
    "CatalogLoading",
    "SkillQuarantined",
    "Unauthenticated",
    "PermissionDenied",
    "InvalidArgument",
    "NotFound",
    "Unavailable",
    "DeadlineExceeded",
    "REASONS",
]


class SkillsError(Exception):
    """A call to skillsd failed.

    Attributes:
        code: the gRPC status code.
        reason: the ErrorInfo reason (``SKILL_NOT_FOUND``), or ``""``.
        metadata: the ErrorInfo metadata (``{"skill_path": ...}``).
        message: the status message, a sentence for people.
    """

    def __init__(self, code: grpc.StatusCode, message: str, reason: str = "", metadata: Optional[Dict[str, str]] = None):
        super().__init__(f"{reason or code.name}: {message}")
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata: Dict[str, str] = dict(metadata or {})


class SkillNotFound(SkillsError):
    """No skill has the requested path or name."""

    @property
    def skill_path(self) -> str:
        return self.metadata.get("skill_path", "")

    @property
    def suggestions(self) -> List[str]:
        """Close skill paths, best first; empty when none is close."""
        s = self.metadata.get("suggestions", "")
        return s.split(",") if s else []


class SkillDisabled(SkillsError):
    """The skill is outside the enabled skills or categories of this server."""


class FileNotFound(SkillsError):
    """The file is not part of the skill or of its inheritance chain."""


class InvalidPath(SkillsError):
    """A path in the request is malformed or tries to leave its folder."""


class FileTooLarge(SkillsError):
    """The file is larger than the limit for this kind of read."""


class ScriptsDisabled(SkillsError):
    """Script execution is off, globally or for the skill's source."""


class ScriptNotDeclared(SkillsError):
    """The script is not declared in the skill's frontmatter."""


class ScriptNotServer(SkillsError):
    """The script is declared with execution "claude": the agent runs it."""


class MissingArguments(SkillsError):
    """Required script arguments are missing."""

    @property
    def missing(self) -> List[str]:
        s = self.metadata.get("missing", "")
        return s.split(",") if s else []


class ExtensionNotAllowed(SkillsError):
    """The script's extension is not allowed."""


class NoRunner(SkillsError):
    """No runner is configured for the script's extension."""


class RefreshInProgress(SkillsError):
    """A refresh is already running."""


class UpstreamError(SkillsError):
    """An upstream system (a git remote, an analytics endpoint) failed."""


class Unauthorized(SkillsError):
    """The caller's credentials were refused."""


class Forbidden(SkillsError):
    """The caller may not read this content."""


class NotSupported(SkillsError):
    """Not supported on this platform or in this configuration (analytics off, ...)."""


class CommandsDisabled(SkillsError):
    """Running commands is off on this server."""


class CommandNotAllowed(SkillsError):
    """The command is not in the server's allow-list."""


class AgentNotFound(SkillsError):
    """No agent profile has the requested name."""


class DocNotFound(SkillsError):
    """No documentation page is at the requested path."""


class IsolationUnavailable(SkillsError):
    """The server requires scripts to be isolated by the kernel and this host lacks a protection."""


class CatalogLoading(SkillsError):
    """The server's first catalog is still loading (a git source cloned for the
    first time); try again in a moment."""


class SkillQuarantined(SkillsError):
    """The server's security scan quarantined the skill (security.quarantine):
    it is not served until it is fixed or a reviewer accepts it."""


class Unauthenticated(SkillsError):
    """The call needs a token, or the token was refused (no reason given)."""


class PermissionDenied(SkillsError):
    """The caller may not do this (no reason given)."""


class InvalidArgument(SkillsError):
    """The request is malformed (no reason given)."""


class NotFound(SkillsError):
    """Something the request names does not exist (no reason given)."""


class Unavailable(SkillsError):
    """The server cannot be reached, or is shutting down."""


class DeadlineExceeded(SkillsError):
    """The call's timeout passed."""


#: The exception class of each ErrorReason (skills.v1.ErrorReason without its prefix).
REASONS: Dict[str, Type[SkillsError]] = {
    "SKILL_NOT_FOUND": SkillNotFound,
    "SKILL_DISABLED": SkillDisabled,
    "FILE_NOT_FOUND": FileNotFound,
    "INVALID_PATH": InvalidPath,
    "FILE_TOO_LARGE": FileTooLarge,
    "SCRIPTS_DISABLED": ScriptsDisabled,
    "SCRIPT_NOT_DECLARED": ScriptNotDeclared,
    "SCRIPT_NOT_SERVER": ScriptNotServer,
    "MISSING_ARGUMENTS": MissingArguments,
    "EXTENSION_NOT_ALLOWED": ExtensionNotAllowed,
    "NO_RUNNER": NoRunner,
    "REFRESH_IN_PROGRESS": RefreshInProgress,
    "UPSTREAM_ERROR": UpstreamError,
    "UNAUTHORIZED": Unauthorized,
    "FORBIDDEN": Forbidden,
    "NOT_SUPPORTED": NotSupported,
    "COMMANDS_DISABLED": CommandsDisabled,
    "COMMAND_NOT_ALLOWED": CommandNotAllowed,
    "AGENT_NOT_FOUND": AgentNotFound,
    "DOC_NOT_FOUND": DocNotFound,
    "ISOLATION_UNAVAILABLE": IsolationUnavailable,
    "CATALOG_LOADING": CatalogLoading,
    "SKILL_QUARANTINED": SkillQuarantined,
}

_CODES: Dict[grpc.StatusCode, Type[SkillsError]] = {
    grpc.StatusCode.UNAUTHENTICATED: Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgument,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceeded,
}


def _status_messages():
    """google.rpc.Status and ErrorInfo, built here from their field numbers
    in a private descriptor pool (Debian has no googleapis-common-protos; a
    private pool cannot clash with an installed copy)."""
    fdp = descriptor_pb2.FileDescriptorProto(name="skillsd_client/rpc_status.proto", package="google.rpc", syntax="proto3")
    fdp.dependency.append("google/protobuf/any.proto")
    status = fdp.message_type.add(name="Status")
    status.field.add(name="code", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_INT32, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    status.field.add(name="message", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    status.field.add(
        name="details", number=3, type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE, label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED, type_name=".google.protobuf.Any"
    )
    info = fdp.message_type.add(name="ErrorInfo")
    info.field.add(name="reason", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    info.field.add(name="domain", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    entry = info.nested_type.add(name="MetadataEntry")
    entry.options.map_entry = True
    entry.field.add(name="key", number=1, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    entry.field.add(name="value", number=2, type=descriptor_pb2.FieldDescriptorProto.TYPE_STRING, label=descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL)
    info.field.add(
        name="metadata",
        number=3,
        type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
        label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
        type_name=".google.rpc.ErrorInfo.MetadataEntry",
    )
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(fdp)
    if hasattr(message_factory, "GetMessageClass"):
        get = message_factory.GetMessageClass
    else:  # protobuf < 4.21
        factory = message_factory.MessageFactory(pool)
        get = factory.GetPrototype
    return get(pool.FindMessageTypeByName("google.rpc.Status")), get(pool.FindMessageTypeByName("google.rpc.ErrorInfo"))


_Status, _ErrorInfo = _status_messages()
_ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo"


def from_rpc_error(err: grpc.RpcError) -> SkillsError:
    """The exception for a failed call: by ErrorInfo reason, else by code."""
    code = err.code() if hasattr(err, "code") else grpc.StatusCode.UNKNOWN
    message = err.details() if hasattr(err, "details") else str(err)
    reason, metadata = "", {}
    trailers = err.trailing_metadata() if hasattr(err, "trailing_metadata") else None
    for key, value in trailers or ():
        if key != "grpc-status-details-bin":
            continue
        st = _Status()
        try:
            st.ParseFromString(value)
        except Exception:  # a malformed trailer: keep the code and message
            break
        for d in st.details:
            if d.type_url == _ERROR_INFO_TYPE:
                info = _ErrorInfo()
                info.ParseFromString(d.value)
                reason, metadata = info.reason, dict(info.metadata)
                break
    cls = REASONS.get(reason) or _CODES.get(code, SkillsError)
    exc = cls(code, message or "", reason, metadata)
    exc.__cause__ = err
    return exc
