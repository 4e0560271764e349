from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from skillsd_client._gen.skills.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ConfigStatus(_message.Message):
    __slots__ = ["applied", "checked_at", "error", "file", "restart_needed"]
    APPLIED_FIELD_NUMBER: _ClassVar[int]
    CHECKED_AT_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    RESTART_NEEDED_FIELD_NUMBER: _ClassVar[int]
    applied: _containers.RepeatedScalarFieldContainer[str]
    checked_at: _timestamp_pb2.Timestamp
    error: str
    file: str
    restart_needed: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, file: _Optional[str] = ..., error: _Optional[str] = ..., restart_needed: _Optional[_Iterable[str]] = ..., applied: _Optional[_Iterable[str]] = ..., checked_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetCatalogStatusRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class GetCatalogStatusResponse(_message.Message):
    __slots__ = ["built_at", "catalog_id", "config", "error_count", "generation", "matching_strategy", "routable_count", "script_isolation", "security", "semantic", "skill_count", "sources", "unserved_count", "version", "warning_count"]
    BUILT_AT_FIELD_NUMBER: _ClassVar[int]
    CATALOG_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    ERROR_COUNT_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    MATCHING_STRATEGY_FIELD_NUMBER: _ClassVar[int]
    ROUTABLE_COUNT_FIELD_NUMBER: _ClassVar[int]
    SCRIPT_ISOLATION_FIELD_NUMBER: _ClassVar[int]
    SECURITY_FIELD_NUMBER: _ClassVar[int]
    SEMANTIC_FIELD_NUMBER: _ClassVar[int]
    SKILL_COUNT_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    UNSERVED_COUNT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    WARNING_COUNT_FIELD_NUMBER: _ClassVar[int]
    built_at: _timestamp_pb2.Timestamp
    catalog_id: str
    config: ConfigStatus
    error_count: int
    generation: int
    matching_strategy: str
    routable_count: int
    script_isolation: _types_pb2.ScriptIsolation
    security: SecurityStatus
    semantic: SemanticStatus
    skill_count: int
    sources: _containers.RepeatedCompositeFieldContainer[_types_pb2.SourceStatus]
    unserved_count: int
    version: str
    warning_count: int
    def __init__(self, generation: _Optional[int] = ..., built_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., skill_count: _Optional[int] = ..., routable_count: _Optional[int] = ..., error_count: _Optional[int] = ..., warning_count: _Optional[int] = ..., sources: _Optional[_Iterable[_Union[_types_pb2.SourceStatus, _Mapping]]] = ..., version: _Optional[str] = ..., matching_strategy: _Optional[str] = ..., semantic: _Optional[_Union[SemanticStatus, _Mapping]] = ..., script_isolation: _Optional[_Union[_types_pb2.ScriptIsolation, _Mapping]] = ..., security: _Optional[_Union[SecurityStatus, _Mapping]] = ..., unserved_count: _Optional[int] = ..., config: _Optional[_Union[ConfigStatus, _Mapping]] = ..., catalog_id: _Optional[str] = ...) -> None: ...

class GetSkillRequest(_message.Message):
    __slots__ = ["skill_path", "skip_cache"]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    SKIP_CACHE_FIELD_NUMBER: _ClassVar[int]
    skill_path: str
    skip_cache: bool
    def __init__(self, skill_path: _Optional[str] = ..., skip_cache: bool = ...) -> None: ...

class GetSkillResponse(_message.Message):
    __slots__ = ["assets", "content", "content_digest", "diagnostics", "directory", "file", "files", "findings", "frontmatter", "inheritance_chain", "inherited_assets", "inherited_scripts", "instructions", "scripts", "skill", "skill_file"]
    ASSETS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_DIGEST_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    FRONTMATTER_FIELD_NUMBER: _ClassVar[int]
    INHERITANCE_CHAIN_FIELD_NUMBER: _ClassVar[int]
    INHERITED_ASSETS_FIELD_NUMBER: _ClassVar[int]
    INHERITED_SCRIPTS_FIELD_NUMBER: _ClassVar[int]
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    SCRIPTS_FIELD_NUMBER: _ClassVar[int]
    SKILL_FIELD_NUMBER: _ClassVar[int]
    SKILL_FILE_FIELD_NUMBER: _ClassVar[int]
    assets: _containers.RepeatedCompositeFieldContainer[_types_pb2.Asset]
    content: str
    content_digest: str
    diagnostics: _containers.RepeatedCompositeFieldContainer[_types_pb2.Diagnostic]
    directory: str
    file: str
    files: _containers.RepeatedCompositeFieldContainer[_types_pb2.SkillFile]
    findings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Finding]
    frontmatter: _struct_pb2.Struct
    inheritance_chain: _containers.RepeatedScalarFieldContainer[str]
    inherited_assets: _containers.RepeatedCompositeFieldContainer[_types_pb2.Asset]
    inherited_scripts: _containers.RepeatedCompositeFieldContainer[_types_pb2.Script]
    instructions: str
    scripts: _containers.RepeatedCompositeFieldContainer[_types_pb2.Script]
    skill: _types_pb2.Skill
    skill_file: _types_pb2.SkillFile
    def __init__(self, skill: _Optional[_Union[_types_pb2.Skill, _Mapping]] = ..., frontmatter: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., instructions: _Optional[str] = ..., content: _Optional[str] = ..., directory: _Optional[str] = ..., file: _Optional[str] = ..., files: _Optional[_Iterable[_Union[_types_pb2.SkillFile, _Mapping]]] = ..., assets: _Optional[_Iterable[_Union[_types_pb2.Asset, _Mapping]]] = ..., scripts: _Optional[_Iterable[_Union[_types_pb2.Script, _Mapping]]] = ..., inherited_assets: _Optional[_Iterable[_Union[_types_pb2.Asset, _Mapping]]] = ..., inherited_scripts: _Optional[_Iterable[_Union[_types_pb2.Script, _Mapping]]] = ..., inheritance_chain: _Optional[_Iterable[str]] = ..., diagnostics: _Optional[_Iterable[_Union[_types_pb2.Diagnostic, _Mapping]]] = ..., findings: _Optional[_Iterable[_Union[_types_pb2.Finding, _Mapping]]] = ..., content_digest: _Optional[str] = ..., skill_file: _Optional[_Union[_types_pb2.SkillFile, _Mapping]] = ...) -> None: ...

class GetSkillTreeRequest(_message.Message):
    __slots__ = ["path"]
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class GetSkillTreeResponse(_message.Message):
    __slots__ = ["skills"]
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    skills: _containers.RepeatedCompositeFieldContainer[_types_pb2.SkillNode]
    def __init__(self, skills: _Optional[_Iterable[_Union[_types_pb2.SkillNode, _Mapping]]] = ...) -> None: ...

class ListDiagnosticsRequest(_message.Message):
    __slots__ = ["file_prefix", "min_severity", "source"]
    FILE_PREFIX_FIELD_NUMBER: _ClassVar[int]
    MIN_SEVERITY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    file_prefix: str
    min_severity: _types_pb2.Severity
    source: str
    def __init__(self, min_severity: _Optional[_Union[_types_pb2.Severity, str]] = ..., source: _Optional[str] = ..., file_prefix: _Optional[str] = ...) -> None: ...

class ListDiagnosticsResponse(_message.Message):
    __slots__ = ["diagnostics", "error_count", "findings", "quarantined", "warning_count"]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    ERROR_COUNT_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_FIELD_NUMBER: _ClassVar[int]
    WARNING_COUNT_FIELD_NUMBER: _ClassVar[int]
    diagnostics: _containers.RepeatedCompositeFieldContainer[_types_pb2.Diagnostic]
    error_count: int
    findings: _containers.RepeatedCompositeFieldContainer[_types_pb2.Finding]
    quarantined: _containers.RepeatedCompositeFieldContainer[_types_pb2.QuarantinedSkill]
    warning_count: int
    def __init__(self, diagnostics: _Optional[_Iterable[_Union[_types_pb2.Diagnostic, _Mapping]]] = ..., error_count: _Optional[int] = ..., warning_count: _Optional[int] = ..., findings: _Optional[_Iterable[_Union[_types_pb2.Finding, _Mapping]]] = ..., quarantined: _Optional[_Iterable[_Union[_types_pb2.QuarantinedSkill, _Mapping]]] = ...) -> None: ...

class ListSkillsRequest(_message.Message):
    __slots__ = ["category", "include_body", "page_size", "page_token", "query", "routable_only", "tags"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_BODY_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    ROUTABLE_ONLY_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    category: str
    include_body: bool
    page_size: int
    page_token: str
    query: str
    routable_only: bool
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., query: _Optional[str] = ..., include_body: bool = ..., category: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., routable_only: bool = ...) -> None: ...

class ListSkillsResponse(_message.Message):
    __slots__ = ["next_page_token", "skills", "total_size"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    skills: _containers.RepeatedCompositeFieldContainer[_types_pb2.Skill]
    total_size: int
    def __init__(self, skills: _Optional[_Iterable[_Union[_types_pb2.Skill, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_size: _Optional[int] = ...) -> None: ...

class RefreshSkillsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RefreshSkillsResponse(_message.Message):
    __slots__ = ["commit_hash", "files_changed", "generation", "last_sync", "message", "mode", "skills_reindexed", "sources", "success"]
    COMMIT_HASH_FIELD_NUMBER: _ClassVar[int]
    FILES_CHANGED_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    LAST_SYNC_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    SKILLS_REINDEXED_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    commit_hash: str
    files_changed: int
    generation: int
    last_sync: _timestamp_pb2.Timestamp
    message: str
    mode: str
    skills_reindexed: int
    sources: _containers.RepeatedCompositeFieldContainer[_types_pb2.SourceStatus]
    success: bool
    def __init__(self, success: bool = ..., mode: _Optional[str] = ..., commit_hash: _Optional[str] = ..., files_changed: _Optional[int] = ..., skills_reindexed: _Optional[int] = ..., last_sync: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., message: _Optional[str] = ..., generation: _Optional[int] = ..., sources: _Optional[_Iterable[_Union[_types_pb2.SourceStatus, _Mapping]]] = ...) -> None: ...

class SecurityStatus(_message.Message):
    __slots__ = ["enabled", "finding_counts", "pending_count", "quarantine", "quarantined_count", "rule_count"]
    class FindingCountsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    FINDING_COUNTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_COUNT_FIELD_NUMBER: _ClassVar[int]
    QUARANTINED_COUNT_FIELD_NUMBER: _ClassVar[int]
    QUARANTINE_FIELD_NUMBER: _ClassVar[int]
    RULE_COUNT_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    finding_counts: _containers.ScalarMap[str, int]
    pending_count: int
    quarantine: str
    quarantined_count: int
    rule_count: int
    def __init__(self, enabled: bool = ..., quarantine: _Optional[str] = ..., quarantined_count: _Optional[int] = ..., finding_counts: _Optional[_Mapping[str, int]] = ..., rule_count: _Optional[int] = ..., pending_count: _Optional[int] = ...) -> None: ...

class SemanticStatus(_message.Message):
    __slots__ = ["embedded_count", "last_error", "last_error_at", "model", "pending_count"]
    EMBEDDED_COUNT_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_ERROR_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    PENDING_COUNT_FIELD_NUMBER: _ClassVar[int]
    embedded_count: int
    last_error: str
    last_error_at: _timestamp_pb2.Timestamp
    model: str
    pending_count: int
    def __init__(self, model: _Optional[str] = ..., embedded_count: _Optional[int] = ..., pending_count: _Optional[int] = ..., last_error: _Optional[str] = ..., last_error_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class WatchCatalogRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class WatchCatalogResponse(_message.Message):
    __slots__ = ["added", "changed", "changed_at", "generation", "initial", "removed"]
    ADDED_FIELD_NUMBER: _ClassVar[int]
    CHANGED_AT_FIELD_NUMBER: _ClassVar[int]
    CHANGED_FIELD_NUMBER: _ClassVar[int]
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FIELD_NUMBER: _ClassVar[int]
    REMOVED_FIELD_NUMBER: _ClassVar[int]
    added: _containers.RepeatedScalarFieldContainer[str]
    changed: _containers.RepeatedScalarFieldContainer[str]
    changed_at: _timestamp_pb2.Timestamp
    generation: int
    initial: bool
    removed: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, generation: _Optional[int] = ..., changed_at: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., added: _Optional[_Iterable[str]] = ..., changed: _Optional[_Iterable[str]] = ..., removed: _Optional[_Iterable[str]] = ..., initial: bool = ...) -> None: ...
