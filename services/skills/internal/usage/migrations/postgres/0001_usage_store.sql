-- The usage store: every event once (by id), and day rollups that keep the
-- statistics of a long window cheap. Text that is compared or grouped is
-- COLLATE "C" (byte order), as in the SQLite store, so both answer alike.
-- All derived columns are computed by skillsd when an event is stored.

CREATE TABLE usage_events (
	id          TEXT COLLATE "C" PRIMARY KEY,
	type        TEXT COLLATE "C" NOT NULL,
	ts          BIGINT NOT NULL,               -- Unix nanoseconds
	day         BIGINT NOT NULL,               -- UTC days since 1970-01-01
	server_id   TEXT NOT NULL,
	skill_path  TEXT COLLATE "C" NOT NULL,     -- data.skill_path, '' when none
	context     TEXT COLLATE "C" NOT NULL,     -- data.context (data.query for search), white space collapsed
	context_key TEXT COLLATE "C" NOT NULL,     -- digest of context folded to ASCII lower case
	useful      INTEGER NOT NULL,              -- skill_feedback: 1 when useful
	no_result   INTEGER NOT NULL,              -- search: 1 when it found nothing
	comment     TEXT COLLATE "C" NOT NULL,     -- skill_feedback: the comment
	data        TEXT NOT NULL                  -- the data fields, JSON
);
CREATE INDEX usage_events_type_ts ON usage_events (type, ts);
CREATE INDEX usage_events_ts ON usage_events (ts);
CREATE INDEX usage_events_comments ON usage_events (ts) WHERE type = 'skill_feedback' AND comment <> '';

-- One row per skill named among an ambiguous event's candidates.
CREATE TABLE usage_candidates (
	event_id   TEXT COLLATE "C" NOT NULL,
	ts         BIGINT NOT NULL,
	skill_path TEXT COLLATE "C" NOT NULL,
	n          BIGINT NOT NULL
);
CREATE INDEX usage_candidates_ts ON usage_candidates (ts);

-- Day rollups, written in the transaction that stores the events.
CREATE TABLE usage_days (
	day       BIGINT PRIMARY KEY,
	served    BIGINT NOT NULL,
	no_match  BIGINT NOT NULL,
	ambiguous BIGINT NOT NULL,
	searches  BIGINT NOT NULL,
	feedback  BIGINT NOT NULL,
	total     BIGINT NOT NULL
);

CREATE TABLE usage_skill_days (
	day         BIGINT NOT NULL,
	skill_path  TEXT COLLATE "C" NOT NULL,
	served      BIGINT NOT NULL,
	last_served BIGINT NOT NULL,
	ambiguous   BIGINT NOT NULL,
	useful      BIGINT NOT NULL,
	not_useful  BIGINT NOT NULL,
	PRIMARY KEY (day, skill_path)
);

CREATE TABLE usage_context_days (
	kind        TEXT COLLATE "C" NOT NULL,     -- 'no_match' (with searches that found nothing) or 'ambiguous'
	day         BIGINT NOT NULL,
	context_key TEXT COLLATE "C" NOT NULL,
	context_min TEXT COLLATE "C" NOT NULL,     -- the smallest spelling seen
	n           BIGINT NOT NULL,
	PRIMARY KEY (kind, day, context_key)
);
