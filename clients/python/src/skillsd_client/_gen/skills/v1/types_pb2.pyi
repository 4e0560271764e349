from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
ERROR_REASON_AGENT_NOT_FOUND: ErrorReason
ERROR_REASON_CATALOG_LOADING: ErrorReason
ERROR_REASON_COMMANDS_DISABLED: ErrorReason
ERROR_REASON_COMMAND_NOT_ALLOWED: ErrorReason
ERROR_REASON_DOC_NOT_FOUND: ErrorReason
ERROR_REASON_EXTENSION_NOT_ALLOWED: ErrorReason
ERROR_REASON_FILE_NOT_FOUND: ErrorReason
ERROR_REASON_FILE_TOO_LARGE: ErrorReason
ERROR_REASON_FORBIDDEN: ErrorReason
ERROR_REASON_INVALID_PATH: ErrorReason
ERROR_REASON_ISOLATION_UNAVAILABLE: ErrorReason
ERROR_REASON_MISSING_ARGUMENTS: ErrorReason
ERROR_REASON_NOT_SUPPORTED: ErrorReason
ERROR_REASON_NO_RUNNER: ErrorReason
ERROR_REASON_REFRESH_IN_PROGRESS: ErrorReason
ERROR_REASON_SCRIPTS_DISABLED: ErrorReason
ERROR_REASON_SCRIPT_NOT_DECLARED: ErrorReason
ERROR_REASON_SCRIPT_NOT_SERVER: ErrorReason
ERROR_REASON_SKILL_DISABLED: ErrorReason
ERROR_REASON_SKILL_NOT_FOUND: ErrorReason
ERROR_REASON_SKILL_QUARANTINED: ErrorReason
ERROR_REASON_UNAUTHORIZED: ErrorReason
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_UPSTREAM_ERROR: ErrorReason
FINDING_SEVERITY_CRITICAL: FindingSeverity
FINDING_SEVERITY_HIGH: FindingSeverity
FINDING_SEVERITY_INFO: FindingSeverity
FINDING_SEVERITY_LOW: FindingSeverity
FINDING_SEVERITY_MEDIUM: FindingSeverity
FINDING_SEVERITY_UNSPECIFIED: FindingSeverity
LAYOUT_FOLDER: Layout
LAYOUT_TREE: Layout
LAYOUT_UNSPECIFIED: Layout
SEVERITY_ERROR: Severity
SEVERITY_INFO: Severity
SEVERITY_UNSPECIFIED: Severity
SEVERITY_WARNING: Severity

class Asset(_message.Message):
    __slots__ = ["description", "file", "type"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    description: str
    file: str
    type: str
    def __init__(self, file: _Optional[str] = ..., description: _Optional[str] = ..., type: _Optional[str] = ..., **kwargs) -> None: ...

class Diagnostic(_message.Message):
    __slots__ = ["code", "file", "line", "message", "severity", "source"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    code: str
    file: str
    line: int
    message: str
    severity: Severity
    source: str
    def __init__(self, source: _Optional[str] = ..., file: _Optional[str] = ..., line: _Optional[int] = ..., severity: _Optional[_Union[Severity, str]] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class Finding(_message.Message):
    __slots__ = ["accepted", "accepted_reason", "blocking", "file", "line", "message", "rule", "severity", "skill_path", "source"]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    ACCEPTED_REASON_FIELD_NUMBER: _ClassVar[int]
    BLOCKING_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    accepted: bool
    accepted_reason: str
    blocking: bool
    file: str
    line: int
    message: str
    rule: str
    severity: FindingSeverity
    skill_path: str
    source: str
    def __init__(self, source: _Optional[str] = ..., skill_path: _Optional[str] = ..., file: _Optional[str] = ..., line: _Optional[int] = ..., rule: _Optional[str] = ..., severity: _Optional[_Union[FindingSeverity, str]] = ..., message: _Optional[str] = ..., accepted: bool = ..., accepted_reason: _Optional[str] = ..., blocking: bool = ...) -> None: ...

class QuarantinedSkill(_message.Message):
    __slots__ = ["content_digest", "reason", "skill_path", "source"]
    CONTENT_DIGEST_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    content_digest: str
    reason: str
    skill_path: str
    source: str
    def __init__(self, skill_path: _Optional[str] = ..., source: _Optional[str] = ..., reason: _Optional[str] = ..., content_digest: _Optional[str] = ...) -> None: ...

class Script(_message.Message):
    __slots__ = ["args", "description", "execution", "file", "network"]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    args: _containers.RepeatedCompositeFieldContainer[ScriptArg]
    description: str
    execution: str
    file: str
    network: bool
    def __init__(self, file: _Optional[str] = ..., description: _Optional[str] = ..., execution: _Optional[str] = ..., args: _Optional[_Iterable[_Union[ScriptArg, _Mapping]]] = ..., network: bool = ..., **kwargs) -> None: ...

class ScriptArg(_message.Message):
    __slots__ = ["default", "description", "name", "required"]
    DEFAULT_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    default: str
    description: str
    name: str
    required: bool
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., required: bool = ..., default: _Optional[str] = ...) -> None: ...

class ScriptIsolation(_message.Message):
    __slots__ = ["detail", "in_force", "missing", "network", "required"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    IN_FORCE_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    NETWORK_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_FIELD_NUMBER: _ClassVar[int]
    detail: _containers.RepeatedScalarFieldContainer[str]
    in_force: _containers.RepeatedScalarFieldContainer[str]
    missing: _containers.RepeatedScalarFieldContainer[str]
    network: bool
    required: bool
    def __init__(self, in_force: _Optional[_Iterable[str]] = ..., missing: _Optional[_Iterable[str]] = ..., detail: _Optional[_Iterable[str]] = ..., network: bool = ..., required: bool = ...) -> None: ...

class Skill(_message.Message):
    __slots__ = ["always_apply", "argument_hint", "asset_count", "body", "category", "description", "file_count", "keywords", "layout", "loaded_at", "name", "parent_path", "routable", "script_count", "skill_path", "source", "tags", "user_invocable"]
    ALWAYS_APPLY_FIELD_NUMBER: _ClassVar[int]
    ARGUMENT_HINT_FIELD_NUMBER: _ClassVar[int]
    ASSET_COUNT_FIELD_NUMBER: _ClassVar[int]
    BODY_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    FILE_COUNT_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    LOADED_AT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARENT_PATH_FIELD_NUMBER: _ClassVar[int]
    ROUTABLE_FIELD_NUMBER: _ClassVar[int]
    SCRIPT_COUNT_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    USER_INVOCABLE_FIELD_NUMBER: _ClassVar[int]
    always_apply: bool
    argument_hint: str
    asset_count: int
    body: str
    category: str
    description: str
    file_count: int
    keywords: _containers.RepeatedScalarFieldContainer[str]
    layout: Layout
    loaded_at: _timestamp_pb2.Timestamp
    name: str
    parent_path: str
    routable: bool
    script_count: int
    skill_path: str
    source: str
    tags: _containers.RepeatedScalarFieldContainer[str]
    user_invocable: bool
    def __init__(self, skill_path: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., layout: _Optional[_Union[Layout, str]] = ..., category: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., keywords: _Optional[_Iterable[str]] = ..., source: _Optional[str] = ..., routable: bool = ..., user_invocable: bool = ..., always_apply: bool = ..., parent_path: _Optional[str] = ..., asset_count: _Optional[int] = ..., script_count: _Optional[int] = ..., file_count: _Optional[int] = ..., loaded_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., body: _Optional[str] = ..., argument_hint: _Optional[str] = ...) -> None: ...

class SkillFile(_message.Message):
    __slots__ = ["digest", "mime_type", "path", "size_bytes", "text"]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    digest: str
    mime_type: str
    path: str
    size_bytes: int
    text: bool
    def __init__(self, path: _Optional[str] = ..., size_bytes: _Optional[int] = ..., digest: _Optional[str] = ..., mime_type: _Optional[str] = ..., text: bool = ...) -> None: ...

class SkillNode(_message.Message):
    __slots__ = ["asset_count", "children", "description", "keywords", "name", "path", "script_count"]
    ASSET_COUNT_FIELD_NUMBER: _ClassVar[int]
    CHILDREN_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SCRIPT_COUNT_FIELD_NUMBER: _ClassVar[int]
    asset_count: int
    children: _containers.RepeatedCompositeFieldContainer[SkillNode]
    description: str
    keywords: _containers.RepeatedScalarFieldContainer[str]
    name: str
    path: str
    script_count: int
    def __init__(self, name: _Optional[str] = ..., path: _Optional[str] = ..., description: _Optional[str] = ..., keywords: _Optional[_Iterable[str]] = ..., asset_count: _Optional[int] = ..., script_count: _Optional[int] = ..., children: _Optional[_Iterable[_Union[SkillNode, _Mapping]]] = ...) -> None: ...

class SourceStatus(_message.Message):
    __slots__ = ["commit", "content_id", "error", "kind", "last_sync", "location", "name", "ref", "skill_count", "trusted", "watch"]
    COMMIT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LAST_SYNC_FIELD_NUMBER: _ClassVar[int]
    LOCATION_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REF_FIELD_NUMBER: _ClassVar[int]
    SKILL_COUNT_FIELD_NUMBER: _ClassVar[int]
    TRUSTED_FIELD_NUMBER: _ClassVar[int]
    WATCH_FIELD_NUMBER: _ClassVar[int]
    commit: str
    content_id: str
    error: str
    kind: str
    last_sync: _timestamp_pb2.Timestamp
    location: str
    name: str
    ref: str
    skill_count: int
    trusted: bool
    watch: WatchStatus
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[str] = ..., location: _Optional[str] = ..., ref: _Optional[str] = ..., commit: _Optional[str] = ..., trusted: bool = ..., skill_count: _Optional[int] = ..., last_sync: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., error: _Optional[str] = ..., watch: _Optional[_Union[WatchStatus, _Mapping]] = ..., content_id: _Optional[str] = ...) -> None: ...

class UsageEvent(_message.Message):
    __slots__ = ["data", "id", "server_id", "timestamp", "type"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    SERVER_ID_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    data: _struct_pb2.Struct
    id: str
    server_id: str
    timestamp: _timestamp_pb2.Timestamp
    type: str
    def __init__(self, id: _Optional[str] = ..., type: _Optional[str] = ..., timestamp: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., server_id: _Optional[str] = ..., data: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class WatchStatus(_message.Message):
    __slots__ = ["diagnostics", "message", "mode", "next_retry", "unwatched_count"]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    NEXT_RETRY_FIELD_NUMBER: _ClassVar[int]
    UNWATCHED_COUNT_FIELD_NUMBER: _ClassVar[int]
    diagnostics: _containers.RepeatedCompositeFieldContainer[Diagnostic]
    message: str
    mode: str
    next_retry: _timestamp_pb2.Timestamp
    unwatched_count: int
    def __init__(self, mode: _Optional[str] = ..., message: _Optional[str] = ..., diagnostics: _Optional[_Iterable[_Union[Diagnostic, _Mapping]]] = ..., unwatched_count: _Optional[int] = ..., next_retry: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class Layout(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Severity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class FindingSeverity(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
