import { useEffect, useState } from "preact/hooks";
import type { RefreshSkillsResponse } from "@skillsd/client";
import { PermissionDeniedError, UnauthenticatedError } from "@skillsd/client";
import { client, live, requireToken, useLoad, useStore } from "../api.ts";
import { ErrorBox, Placeholder, when } from "../ui.tsx";

export function StatusPage() {
  const l = useStore(live);
  const res = useLoad((signal) => client.getCatalogStatus({}, { signal }), []);
  // A change seen by the watch stream: read the status again.
  useEffect(() => {
    if (res.data && l.generation && l.generation !== res.data.generation) res.reload();
  }, [l.generation]);
  const st = res.data;
  return (
    <div class="status-page">
      <div class="page-head">
        <h1>Status</h1>
        <RefreshButton onDone={res.reload} />
      </div>
      {res.error ? <ErrorBox error={res.error} retry={res.reload} /> : null}
      <dl class="stats">
        <div>
          <dt>Generation</dt>
          <dd>{st ? st.generation : "…"}</dd>
        </div>
        <div>
          <dt>Skills</dt>
          <dd>{st ? st.skill_count : "…"}</dd>
        </div>
        <div>
          <dt>Routable</dt>
          <dd>{st ? st.routable_count : "…"}</dd>
        </div>
        <div>
          <dt>Errors</dt>
          <dd>{st ? st.error_count : "…"}</dd>
        </div>
        <div>
          <dt>Warnings</dt>
          <dd>{st ? st.warning_count : "…"}</dd>
        </div>
      </dl>
      <dl class="facts">
        <dt>Built</dt>
        <dd>{st ? when(st.built_at) : "…"}</dd>
        <dt>Watch</dt>
        <dd>
          {l.state === "live" ? "live: this page hears of every catalog change" : l.state === "connecting" ? "connecting…" : "offline: reconnecting"}
          {l.last ? ` (last change: ${l.last})` : ""}
        </dd>
        <dt>Version</dt>
        <dd>{st ? st.version : "…"}</dd>
        <dt>Matching</dt>
        <dd>{st ? st.matching_strategy : "…"}</dd>
        <dt>Semantic search</dt>
        <dd>
          {!st
            ? "…"
            : st.semantic
              ? `${st.semantic.model}: ${st.semantic.embedded_count} embedded, ${st.semantic.pending_count} pending${st.semantic.last_error ? ` · last error: ${st.semantic.last_error}` : ""}`
              : "off"}
        </dd>
      </dl>
      <h2>Sources</h2>
      {!st ? <Placeholder lines={3} /> : null}
      {st ? (
        <div class="table-wrap">
          <table class="sources">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Folder or commit</th>
                <th scope="col" class="num">
                  Skills
                </th>
                <th scope="col">Last refresh</th>
                <th scope="col">Watch</th>
                <th scope="col">Scripts</th>
              </tr>
            </thead>
            <tbody>
              {st.sources.map((s) => {
                const watch = (s as { watch?: unknown; watch_state?: unknown }).watch_state ?? (s as { watch?: unknown }).watch;
                return (
                  <tr key={s.name}>
                    <td>
                      <span class="badge">{s.kind}</span> {s.name}
                      {s.error ? (
                        <div class="error-text small" role="note">
                          {s.error}
                        </div>
                      ) : null}
                    </td>
                    <td class="mono small">
                      {s.kind === "git" ? (
                        <>
                          {s.location} @ {s.ref}
                          <br />
                          {s.commit ? s.commit.slice(0, 12) : "not checked out yet"}
                        </>
                      ) : (
                        s.location
                      )}
                    </td>
                    <td class="num">{s.skill_count}</td>
                    <td class="small">{when(s.last_sync)}</td>
                    <td class="small">{watch ? describeWatch(watch) : s.kind === "git" ? "polled" : "watched"}</td>
                    <td class="small">{s.trusted ? "may run" : "off"}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
    </div>
  );
}

/** The words of each mode of a source's WatchStatus. */
const watchModes: Record<string, string> = {
  watching: "watched",
  partial: "partly watched",
  polling: "polled",
  off: "not watched",
  git: "polled (git)",
};

/** A source's watch state, whatever shape the server gives it. */
function describeWatch(w: unknown): string {
  if (typeof w === "string") return w.replace(/^WATCH_STATE_/, "").toLowerCase().replaceAll("_", " ");
  if (w && typeof w === "object") {
    const o = w as Record<string, unknown>;
    if (typeof o["mode"] === "string") {
      // skills.v1.WatchStatus: the mode, and why when it is not plain watching.
      const label = watchModes[o["mode"]] ?? o["mode"];
      const message = typeof o["message"] === "string" ? o["message"] : "";
      return o["mode"] === "partial" || o["mode"] === "polling" ? [label, message].filter(Boolean).join(": ") : label;
    }
    const state = typeof o["state"] === "string" ? describeWatch(o["state"]) : "";
    const detail = typeof o["detail"] === "string" ? o["detail"] : typeof o["error"] === "string" ? o["error"] : "";
    return [state, detail].filter(Boolean).join(": ");
  }
  return String(w);
}

function RefreshButton({ onDone }: { onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<RefreshSkillsResponse | undefined>();
  const [denied, setDenied] = useState("");
  const [error, setError] = useState<Error | undefined>();
  const refresh = async () => {
    setBusy(true);
    setError(undefined);
    try {
      setResult(await client.refreshSkills({}));
      onDone();
    } catch (e) {
      if (e instanceof UnauthenticatedError) requireToken(e);
      else if (e instanceof PermissionDeniedError) setDenied(e.message);
      else setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="refresh">
      {denied ? (
        <span class="muted small" role="note">
          You may not refresh: {denied}
        </span>
      ) : (
        <button type="button" class="primary" onClick={refresh} disabled={busy}>
          {busy ? "Refreshing…" : "Refresh now"}
        </button>
      )}
      <span class="small refresh-result" aria-live="polite">
        {result ? `${result.success ? "" : "Not run: "}${result.message}` : ""}
        {error ? error.message : ""}
      </span>
    </div>
  );
}
