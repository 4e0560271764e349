from google.protobuf import timestamp_pb2 as _timestamp_pb2
from skillsd_client._gen.skills.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ContextCount(_message.Message):
    __slots__ = ["context", "count"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    context: str
    count: int
    def __init__(self, context: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class DayCount(_message.Message):
    __slots__ = ["ambiguous", "day", "feedback", "no_match", "searches", "served"]
    AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    DAY_FIELD_NUMBER: _ClassVar[int]
    FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    NO_MATCH_FIELD_NUMBER: _ClassVar[int]
    SEARCHES_FIELD_NUMBER: _ClassVar[int]
    SERVED_FIELD_NUMBER: _ClassVar[int]
    ambiguous: int
    day: str
    feedback: int
    no_match: int
    searches: int
    served: int
    def __init__(self, day: _Optional[str] = ..., served: _Optional[int] = ..., no_match: _Optional[int] = ..., ambiguous: _Optional[int] = ..., searches: _Optional[int] = ..., feedback: _Optional[int] = ...) -> None: ...

class GetUsageStatsRequest(_message.Message):
    __slots__ = ["end_time", "skill_path", "start_time", "top_n"]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    TOP_N_FIELD_NUMBER: _ClassVar[int]
    end_time: _timestamp_pb2.Timestamp
    skill_path: str
    start_time: _timestamp_pb2.Timestamp
    top_n: int
    def __init__(self, start_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., skill_path: _Optional[str] = ..., top_n: _Optional[int] = ...) -> None: ...

class GetUsageStatsResponse(_message.Message):
    __slots__ = ["by_day", "end_time", "skills", "start_time", "top_ambiguous", "top_no_match", "total_events"]
    BY_DAY_FIELD_NUMBER: _ClassVar[int]
    END_TIME_FIELD_NUMBER: _ClassVar[int]
    SKILLS_FIELD_NUMBER: _ClassVar[int]
    START_TIME_FIELD_NUMBER: _ClassVar[int]
    TOP_AMBIGUOUS_FIELD_NUMBER: _ClassVar[int]
    TOP_NO_MATCH_FIELD_NUMBER: _ClassVar[int]
    TOTAL_EVENTS_FIELD_NUMBER: _ClassVar[int]
    by_day: _containers.RepeatedCompositeFieldContainer[DayCount]
    end_time: _timestamp_pb2.Timestamp
    skills: _containers.RepeatedCompositeFieldContainer[SkillUsage]
    start_time: _timestamp_pb2.Timestamp
    top_ambiguous: _containers.RepeatedCompositeFieldContainer[ContextCount]
    top_no_match: _containers.RepeatedCompositeFieldContainer[ContextCount]
    total_events: int
    def __init__(self, start_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., end_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., skills: _Optional[_Iterable[_Union[SkillUsage, _Mapping]]] = ..., top_no_match: _Optional[_Iterable[_Union[ContextCount, _Mapping]]] = ..., top_ambiguous: _Optional[_Iterable[_Union[ContextCount, _Mapping]]] = ..., by_day: _Optional[_Iterable[_Union[DayCount, _Mapping]]] = ..., total_events: _Optional[int] = ...) -> None: ...

class IngestEventsRequest(_message.Message):
    __slots__ = ["events"]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[_types_pb2.UsageEvent]
    def __init__(self, events: _Optional[_Iterable[_Union[_types_pb2.UsageEvent, _Mapping]]] = ...) -> None: ...

class IngestEventsResponse(_message.Message):
    __slots__ = ["accepted", "duplicates"]
    ACCEPTED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    accepted: int
    duplicates: int
    def __init__(self, accepted: _Optional[int] = ..., duplicates: _Optional[int] = ...) -> None: ...

class ReportUsageRequest(_message.Message):
    __slots__ = ["comment", "skill_path", "useful"]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    USEFUL_FIELD_NUMBER: _ClassVar[int]
    comment: str
    skill_path: str
    useful: bool
    def __init__(self, skill_path: _Optional[str] = ..., useful: bool = ..., comment: _Optional[str] = ...) -> None: ...

class ReportUsageResponse(_message.Message):
    __slots__ = ["message", "recorded"]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    message: str
    recorded: bool
    def __init__(self, recorded: bool = ..., message: _Optional[str] = ...) -> None: ...

class SkillUsage(_message.Message):
    __slots__ = ["ambiguous_appearances", "last_served", "not_useful", "recent_comments", "served", "skill_path", "useful"]
    AMBIGUOUS_APPEARANCES_FIELD_NUMBER: _ClassVar[int]
    LAST_SERVED_FIELD_NUMBER: _ClassVar[int]
    NOT_USEFUL_FIELD_NUMBER: _ClassVar[int]
    RECENT_COMMENTS_FIELD_NUMBER: _ClassVar[int]
    SERVED_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    USEFUL_FIELD_NUMBER: _ClassVar[int]
    ambiguous_appearances: int
    last_served: _timestamp_pb2.Timestamp
    not_useful: int
    recent_comments: _containers.RepeatedScalarFieldContainer[str]
    served: int
    skill_path: str
    useful: int
    def __init__(self, skill_path: _Optional[str] = ..., served: _Optional[int] = ..., ambiguous_appearances: _Optional[int] = ..., useful: _Optional[int] = ..., not_useful: _Optional[int] = ..., recent_comments: _Optional[_Iterable[str]] = ..., last_served: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...
