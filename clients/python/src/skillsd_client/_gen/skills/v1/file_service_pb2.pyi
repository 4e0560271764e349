from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ReadSkillFileRequest(_message.Message):
    __slots__ = ["file", "max_bytes", "offset", "skill_path", "skip_cache"]
    FILE_FIELD_NUMBER: _ClassVar[int]
    MAX_BYTES_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    SKIP_CACHE_FIELD_NUMBER: _ClassVar[int]
    file: str
    max_bytes: int
    offset: int
    skill_path: str
    skip_cache: bool
    def __init__(self, skill_path: _Optional[str] = ..., file: _Optional[str] = ..., offset: _Optional[int] = ..., max_bytes: _Optional[int] = ..., skip_cache: bool = ...) -> None: ...

class ReadSkillFileResponse(_message.Message):
    __slots__ = ["binary", "data", "digest", "file", "mime_type", "next_offset", "resolved_from", "size_bytes", "skill_path", "text", "truncated", "type"]
    BINARY_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_FROM_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    binary: bool
    data: bytes
    digest: str
    file: str
    mime_type: str
    next_offset: int
    resolved_from: str
    size_bytes: int
    skill_path: str
    text: str
    truncated: bool
    type: str
    def __init__(self, skill_path: _Optional[str] = ..., file: _Optional[str] = ..., text: _Optional[str] = ..., data: _Optional[bytes] = ..., binary: bool = ..., size_bytes: _Optional[int] = ..., type: _Optional[str] = ..., mime_type: _Optional[str] = ..., resolved_from: _Optional[str] = ..., truncated: bool = ..., next_offset: _Optional[int] = ..., digest: _Optional[str] = ...) -> None: ...
