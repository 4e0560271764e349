from skillsd_client._gen.skills.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunCommandRequest(_message.Message):
    __slots__ = ["args", "command", "skill_path"]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    args: _containers.RepeatedScalarFieldContainer[str]
    command: str
    skill_path: str
    def __init__(self, skill_path: _Optional[str] = ..., command: _Optional[str] = ..., args: _Optional[_Iterable[str]] = ...) -> None: ...

class RunCommandResponse(_message.Message):
    __slots__ = ["duration_ms", "exit_code", "isolation", "program", "stderr", "stderr_truncated", "stdout", "stdout_truncated", "timed_out"]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    ISOLATION_FIELD_NUMBER: _ClassVar[int]
    PROGRAM_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    STDERR_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDOUT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    exit_code: int
    isolation: _types_pb2.ScriptIsolation
    program: str
    stderr: str
    stderr_truncated: bool
    stdout: str
    stdout_truncated: bool
    timed_out: bool
    def __init__(self, stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., exit_code: _Optional[int] = ..., timed_out: bool = ..., stdout_truncated: bool = ..., stderr_truncated: bool = ..., duration_ms: _Optional[int] = ..., program: _Optional[str] = ..., isolation: _Optional[_Union[_types_pb2.ScriptIsolation, _Mapping]] = ...) -> None: ...

class RunScriptRequest(_message.Message):
    __slots__ = ["args", "cwd", "file", "skill_path"]
    class ArgsEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ARGS_FIELD_NUMBER: _ClassVar[int]
    CWD_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    args: _containers.ScalarMap[str, str]
    cwd: str
    file: str
    skill_path: str
    def __init__(self, skill_path: _Optional[str] = ..., file: _Optional[str] = ..., args: _Optional[_Mapping[str, str]] = ..., cwd: _Optional[str] = ...) -> None: ...

class RunScriptResponse(_message.Message):
    __slots__ = ["duration_ms", "exit_code", "isolation", "script", "stderr", "stderr_truncated", "stdout", "stdout_truncated", "success", "timed_out"]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    ISOLATION_FIELD_NUMBER: _ClassVar[int]
    SCRIPT_FIELD_NUMBER: _ClassVar[int]
    STDERR_FIELD_NUMBER: _ClassVar[int]
    STDERR_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    STDOUT_FIELD_NUMBER: _ClassVar[int]
    STDOUT_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    duration_ms: int
    exit_code: int
    isolation: _types_pb2.ScriptIsolation
    script: str
    stderr: str
    stderr_truncated: bool
    stdout: str
    stdout_truncated: bool
    success: bool
    timed_out: bool
    def __init__(self, success: bool = ..., exit_code: _Optional[int] = ..., stdout: _Optional[str] = ..., stderr: _Optional[str] = ..., duration_ms: _Optional[int] = ..., script: _Optional[str] = ..., timed_out: bool = ..., stdout_truncated: bool = ..., stderr_truncated: bool = ..., isolation: _Optional[_Union[_types_pb2.ScriptIsolation, _Mapping]] = ...) -> None: ...
