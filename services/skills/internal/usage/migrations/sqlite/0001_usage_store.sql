-- The usage store: every event once (by id), and day rollups that keep the
-- statistics of a long window cheap. Text compares in byte order (SQLite's
-- BINARY), as in the PostgreSQL store, so both answer alike. All derived
-- columns are computed by skillsd when an event is stored.

CREATE TABLE usage_events (
	id          TEXT PRIMARY KEY,
	type        TEXT NOT NULL,
	ts          INTEGER NOT NULL,               -- Unix nanoseconds
	day         INTEGER NOT NULL,               -- UTC days since 1970-01-01
	server_id   TEXT NOT NULL,
	skill_path  TEXT NOT NULL,     -- data.skill_path, '' when none
	context     TEXT NOT NULL,     -- data.context (data.query for search), white space collapsed
	context_key TEXT NOT NULL,     -- digest of context folded to ASCII lower case
	useful      INTEGER NOT NULL,              -- skill_feedback: 1 when useful
	no_result   INTEGER NOT NULL,              -- search: 1 when it found nothing
	comment     TEXT NOT NULL,     -- skill_feedback: the comment
	data        TEXT NOT NULL                  -- the data fields, JSON
);
CREATE INDEX usage_events_type_ts ON usage_events (type, ts);
CREATE INDEX usage_events_ts ON usage_events (ts);

-- The comments of skill_feedback events, apart: Stats reads the recent
-- ones of a window without reading the (wide) events.
CREATE TABLE usage_comments (
	event_id   TEXT NOT NULL,
	ts         INTEGER NOT NULL,
	skill_path TEXT NOT NULL,
	comment    TEXT NOT NULL
);
CREATE INDEX usage_comments_ts ON usage_comments (ts);

-- One row per skill named among an ambiguous event's candidates.
CREATE TABLE usage_candidates (
	event_id   TEXT NOT NULL,
	ts         INTEGER NOT NULL,
	skill_path TEXT NOT NULL,
	n          INTEGER NOT NULL
);
CREATE INDEX usage_candidates_ts ON usage_candidates (ts);

-- Day rollups, written in the transaction that stores the events.
CREATE TABLE usage_days (
	day       INTEGER PRIMARY KEY,
	served    INTEGER NOT NULL,
	no_match  INTEGER NOT NULL,
	ambiguous INTEGER NOT NULL,
	searches  INTEGER NOT NULL,
	feedback  INTEGER NOT NULL,
	total     INTEGER NOT NULL
) WITHOUT ROWID;

-- The same counts by UTC hour (hours since 1970): the partial first and
-- last days of a window.
CREATE TABLE usage_hours (
	hour      INTEGER PRIMARY KEY,
	day       INTEGER NOT NULL,
	served    INTEGER NOT NULL,
	no_match  INTEGER NOT NULL,
	ambiguous INTEGER NOT NULL,
	searches  INTEGER NOT NULL,
	feedback  INTEGER NOT NULL,
	total     INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TABLE usage_skill_days (
	day         INTEGER NOT NULL,
	skill_path  TEXT NOT NULL,
	served      INTEGER NOT NULL,
	last_served INTEGER NOT NULL,
	ambiguous   INTEGER NOT NULL,
	useful      INTEGER NOT NULL,
	not_useful  INTEGER NOT NULL,
	PRIMARY KEY (day, skill_path)
) WITHOUT ROWID;

CREATE TABLE usage_skill_hours (
	hour        INTEGER NOT NULL,
	skill_path  TEXT NOT NULL,
	served      INTEGER NOT NULL,
	last_served INTEGER NOT NULL,
	ambiguous   INTEGER NOT NULL,
	useful      INTEGER NOT NULL,
	not_useful  INTEGER NOT NULL,
	PRIMARY KEY (hour, skill_path)
) WITHOUT ROWID;

CREATE TABLE usage_context_days (
	kind        TEXT NOT NULL,     -- 'no_match' (with searches that found nothing) or 'ambiguous'
	day         INTEGER NOT NULL,
	context_key TEXT NOT NULL,
	context_min TEXT NOT NULL,     -- the smallest spelling seen
	n           INTEGER NOT NULL,
	PRIMARY KEY (kind, day, context_key)
) WITHOUT ROWID;

CREATE TABLE usage_context_hours (
	kind        TEXT NOT NULL,     -- 'no_match' (with searches that found nothing) or 'ambiguous'
	hour        INTEGER NOT NULL,
	context_key TEXT NOT NULL,
	context_min TEXT NOT NULL,     -- the smallest spelling seen
	n           INTEGER NOT NULL,
	PRIMARY KEY (kind, hour, context_key)
) WITHOUT ROWID;
-- The contexts seen often on some day, and one context's days: how the top
-- contexts of a window are found without aggregating all of them.
CREATE INDEX usage_context_days_heavy ON usage_context_days (kind, n, day);
CREATE INDEX usage_context_days_key ON usage_context_days (kind, context_key, day);
