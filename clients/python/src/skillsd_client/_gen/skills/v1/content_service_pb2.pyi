from google.protobuf import struct_pb2 as _struct_pb2
from skillsd_client._gen.skills.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Agent(_message.Message):
    __slots__ = ["allowed_tools", "description", "model", "name", "path"]
    ALLOWED_TOOLS_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    allowed_tools: _containers.RepeatedScalarFieldContainer[str]
    description: str
    model: str
    name: str
    path: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., model: _Optional[str] = ..., allowed_tools: _Optional[_Iterable[str]] = ..., path: _Optional[str] = ...) -> None: ...

class DocPage(_message.Message):
    __slots__ = ["description", "path", "title"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    description: str
    path: str
    title: str
    def __init__(self, path: _Optional[str] = ..., title: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class GetAgentRequest(_message.Message):
    __slots__ = ["name", "skip_cache"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SKIP_CACHE_FIELD_NUMBER: _ClassVar[int]
    name: str
    skip_cache: bool
    def __init__(self, name: _Optional[str] = ..., skip_cache: bool = ...) -> None: ...

class GetAgentResponse(_message.Message):
    __slots__ = ["content", "name", "path", "sha"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA_FIELD_NUMBER: _ClassVar[int]
    content: str
    name: str
    path: str
    sha: str
    def __init__(self, name: _Optional[str] = ..., content: _Optional[str] = ..., path: _Optional[str] = ..., sha: _Optional[str] = ...) -> None: ...

class GetDocRequest(_message.Message):
    __slots__ = ["path", "skip_cache"]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SKIP_CACHE_FIELD_NUMBER: _ClassVar[int]
    path: _containers.RepeatedScalarFieldContainer[str]
    skip_cache: bool
    def __init__(self, path: _Optional[_Iterable[str]] = ..., skip_cache: bool = ...) -> None: ...

class GetDocResponse(_message.Message):
    __slots__ = ["content", "file_path", "path", "sha"]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SHA_FIELD_NUMBER: _ClassVar[int]
    content: str
    file_path: str
    path: str
    sha: str
    def __init__(self, path: _Optional[str] = ..., content: _Optional[str] = ..., file_path: _Optional[str] = ..., sha: _Optional[str] = ...) -> None: ...

class ListAgentsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListAgentsResponse(_message.Message):
    __slots__ = ["agents", "diagnostics"]
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    agents: _containers.RepeatedCompositeFieldContainer[Agent]
    diagnostics: _containers.RepeatedCompositeFieldContainer[_types_pb2.Diagnostic]
    def __init__(self, agents: _Optional[_Iterable[_Union[Agent, _Mapping]]] = ..., diagnostics: _Optional[_Iterable[_Union[_types_pb2.Diagnostic, _Mapping]]] = ...) -> None: ...

class ListDocsRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListDocsResponse(_message.Message):
    __slots__ = ["diagnostics", "pages", "tree"]
    DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    PAGES_FIELD_NUMBER: _ClassVar[int]
    TREE_FIELD_NUMBER: _ClassVar[int]
    diagnostics: _containers.RepeatedCompositeFieldContainer[_types_pb2.Diagnostic]
    pages: _containers.RepeatedCompositeFieldContainer[DocPage]
    tree: _struct_pb2.Struct
    def __init__(self, tree: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., pages: _Optional[_Iterable[_Union[DocPage, _Mapping]]] = ..., diagnostics: _Optional[_Iterable[_Union[_types_pb2.Diagnostic, _Mapping]]] = ...) -> None: ...
