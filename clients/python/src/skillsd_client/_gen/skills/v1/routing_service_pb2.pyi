from skillsd_client._gen.skills.v1 import types_pb2 as _types_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
MATCH_OUTCOME_AMBIGUOUS: MatchOutcome
MATCH_OUTCOME_MATCH: MatchOutcome
MATCH_OUTCOME_NO_MATCH: MatchOutcome
MATCH_OUTCOME_UNSPECIFIED: MatchOutcome
SEARCH_MODE_ALL_TERMS: SearchMode
SEARCH_MODE_RANKED: SearchMode
SEARCH_MODE_UNSPECIFIED: SearchMode

class MatchCandidate(_message.Message):
    __slots__ = ["description", "matched_keywords", "phrasing", "score", "skill_path"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MATCHED_KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    PHRASING_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    description: str
    matched_keywords: _containers.RepeatedScalarFieldContainer[str]
    phrasing: int
    score: float
    skill_path: str
    def __init__(self, skill_path: _Optional[str] = ..., score: _Optional[float] = ..., description: _Optional[str] = ..., matched_keywords: _Optional[_Iterable[str]] = ..., phrasing: _Optional[int] = ...) -> None: ...

class MatchSkillRequest(_message.Message):
    __slots__ = ["context", "restated"]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    RESTATED_FIELD_NUMBER: _ClassVar[int]
    context: str
    restated: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, context: _Optional[str] = ..., restated: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchSkillResponse(_message.Message):
    __slots__ = ["assets", "candidates", "content", "inherited_assets", "inherited_scripts", "matched_keywords", "message", "outcome", "phrasing", "score", "scripts", "skill_path", "strategy"]
    ASSETS_FIELD_NUMBER: _ClassVar[int]
    CANDIDATES_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    INHERITED_ASSETS_FIELD_NUMBER: _ClassVar[int]
    INHERITED_SCRIPTS_FIELD_NUMBER: _ClassVar[int]
    MATCHED_KEYWORDS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PHRASING_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SCRIPTS_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    STRATEGY_FIELD_NUMBER: _ClassVar[int]
    assets: _containers.RepeatedCompositeFieldContainer[_types_pb2.Asset]
    candidates: _containers.RepeatedCompositeFieldContainer[MatchCandidate]
    content: str
    inherited_assets: _containers.RepeatedCompositeFieldContainer[_types_pb2.Asset]
    inherited_scripts: _containers.RepeatedCompositeFieldContainer[_types_pb2.Script]
    matched_keywords: _containers.RepeatedScalarFieldContainer[str]
    message: str
    outcome: MatchOutcome
    phrasing: int
    score: float
    scripts: _containers.RepeatedCompositeFieldContainer[_types_pb2.Script]
    skill_path: str
    strategy: str
    def __init__(self, outcome: _Optional[_Union[MatchOutcome, str]] = ..., message: _Optional[str] = ..., skill_path: _Optional[str] = ..., score: _Optional[float] = ..., matched_keywords: _Optional[_Iterable[str]] = ..., content: _Optional[str] = ..., assets: _Optional[_Iterable[_Union[_types_pb2.Asset, _Mapping]]] = ..., scripts: _Optional[_Iterable[_Union[_types_pb2.Script, _Mapping]]] = ..., inherited_assets: _Optional[_Iterable[_Union[_types_pb2.Asset, _Mapping]]] = ..., inherited_scripts: _Optional[_Iterable[_Union[_types_pb2.Script, _Mapping]]] = ..., candidates: _Optional[_Iterable[_Union[MatchCandidate, _Mapping]]] = ..., strategy: _Optional[str] = ..., phrasing: _Optional[int] = ...) -> None: ...

class SearchHit(_message.Message):
    __slots__ = ["category", "description", "excerpt", "matched_terms", "name", "phrasing", "score", "skill_path"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXCERPT_FIELD_NUMBER: _ClassVar[int]
    MATCHED_TERMS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PHRASING_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SKILL_PATH_FIELD_NUMBER: _ClassVar[int]
    category: str
    description: str
    excerpt: str
    matched_terms: _containers.RepeatedScalarFieldContainer[str]
    name: str
    phrasing: int
    score: float
    skill_path: str
    def __init__(self, skill_path: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., category: _Optional[str] = ..., score: _Optional[float] = ..., excerpt: _Optional[str] = ..., matched_terms: _Optional[_Iterable[str]] = ..., phrasing: _Optional[int] = ...) -> None: ...

class SearchSkillsRequest(_message.Message):
    __slots__ = ["category", "limit", "mode", "query", "restated", "tags"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    RESTATED_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    category: str
    limit: int
    mode: SearchMode
    query: str
    restated: _containers.RepeatedScalarFieldContainer[str]
    tags: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, query: _Optional[str] = ..., limit: _Optional[int] = ..., mode: _Optional[_Union[SearchMode, str]] = ..., category: _Optional[str] = ..., tags: _Optional[_Iterable[str]] = ..., restated: _Optional[_Iterable[str]] = ...) -> None: ...

class SearchSkillsResponse(_message.Message):
    __slots__ = ["query", "results"]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    query: str
    results: _containers.RepeatedCompositeFieldContainer[SearchHit]
    def __init__(self, query: _Optional[str] = ..., results: _Optional[_Iterable[_Union[SearchHit, _Mapping]]] = ...) -> None: ...

class SearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class MatchOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
