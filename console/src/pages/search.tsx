import { useEffect, useState } from "preact/hooks";
import type { MatchSkillRequest, MatchSkillResponse, SearchSkillsRequest, SearchSkillsResponse } from "@skillsd/client";
import { UnauthenticatedError } from "@skillsd/client";
import { client, requireToken } from "../api.ts";
import { replaceQuery, skillHref, type Route } from "../router.ts";
import { ErrorBox, Placeholder } from "../ui.tsx";

interface Answer {
  search: SearchSkillsResponse;
  match: MatchSkillResponse;
  restated: boolean;
}

export function SearchPage({ route }: { route: Route }) {
  const [query, setQuery] = useState(route.query.get("q") ?? "");
  const [restatement, setRestatement] = useState(route.query.get("r") ?? "");
  const [mode, setMode] = useState<SearchSkillsRequest["mode"]>((route.query.get("mode") as SearchSkillsRequest["mode"]) || "SEARCH_MODE_RANKED");
  const [answer, setAnswer] = useState<Answer | undefined>();
  const [error, setError] = useState<Error | undefined>();
  const [busy, setBusy] = useState(false);

  const run = async (e?: Event) => {
    e?.preventDefault();
    if (!query.trim()) return;
    setBusy(true);
    setError(undefined);
    replaceQuery("search", { q: query, r: restatement || undefined, mode: mode === "SEARCH_MODE_RANKED" ? undefined : mode });
    // Restatements are for ranked search (all-terms mode refuses them).
    const restated = Boolean(restatement.trim() && mode !== "SEARCH_MODE_ALL_TERMS");
    const req: SearchSkillsRequest = { query, mode, limit: 10 };
    const matchReq: MatchSkillRequest = { context: query };
    if (restated) req.restated = matchReq.restated = [restatement.trim()];
    try {
      const [search, match] = await Promise.all([client.searchSkills(req), client.matchSkill(matchReq)]);
      setAnswer({ search, match, restated });
    } catch (err) {
      if (err instanceof UnauthenticatedError) requireToken(err);
      setError(err as Error);
    } finally {
      setBusy(false);
    }
  };

  // A query in the address (#/search?q=…, the usage page's links) runs at once.
  useEffect(() => {
    if (query.trim()) void run();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <div class="search-page">
      <h1>Search playground</h1>
      <p class="muted">
        Ask what an agent would ask: the ranking is what search_skills returns, and the decision is what get_skill would do with the same words.
      </p>
      <form class="search-form" onSubmit={run}>
        <div class="field grow">
          <label for="q">Query</label>
          <input id="q" type="search" value={query} onInput={(e) => setQuery((e.target as HTMLInputElement).value)} placeholder="e.g. write release notes from the last commits" required />
        </div>
        <div class="field grow">
          <label for="r">Restatement (optional)</label>
          <input
            id="r"
            type="text"
            value={restatement}
            onInput={(e) => setRestatement((e.target as HTMLInputElement).value)}
            placeholder="the same need in other words"
            aria-describedby="r-hint"
          />
          <span id="r-hint" class="hint">
            {mode === "SEARCH_MODE_ALL_TERMS"
              ? "All-terms mode takes the query alone."
              : "What a host model would add: ranked on its own and fused with the query (restated)."}
          </span>
        </div>
        <div class="field">
          <label for="mode">Mode</label>
          <select id="mode" value={mode} onChange={(e) => setMode((e.target as HTMLSelectElement).value as SearchSkillsRequest["mode"])}>
            <option value="SEARCH_MODE_RANKED">ranked</option>
            <option value="SEARCH_MODE_ALL_TERMS">all terms</option>
          </select>
        </div>
        <div class="field">
          <button type="submit" class="primary" disabled={busy}>
            Search
          </button>
        </div>
      </form>
      <div class="results-area" aria-live="polite" aria-busy={busy}>
        {error ? <ErrorBox error={error} /> : null}
        {busy && !answer ? <Placeholder lines={6} /> : null}
        {answer ? <Results answer={answer} /> : !busy && !error ? <p class="muted">Results appear here.</p> : null}
      </div>
    </div>
  );
}

function Results({ answer }: { answer: Answer }) {
  const { search, match } = answer;
  const top = search.results[0]?.score ?? 0;
  return (
    <>
      <Decision match={match} abstained={search.results.length === 0} />
      {search.results.length ? (
        <ol class="hits" aria-label="Ranked results">
          {search.results.map((h, i) => (
            <li key={h.skill_path} class="hit">
              <div class="hit-head">
                <span class="rank">#{i + 1}</span>
                <a href={skillHref(h.skill_path)} class="hit-path">
                  {h.skill_path}
                </a>
                <span class="score" title="relevance score">
                  <span class="score-bar" aria-hidden="true">
                    <span class={`fill w${Math.round((top ? h.score / top : 0) * 10)}`} />
                  </span>
                  {h.score.toFixed(3)}
                </span>
              </div>
              <p class="small">{h.description}</p>
              {h.phrasing > 0 ? <p class="small via">matched through the restatement</p> : null}
              {h.excerpt ? <p class="excerpt">{highlight(h.excerpt, h.matched_terms)}</p> : null}
              <p class="terms">
                {h.matched_terms.map((t) => (
                  <span class="badge tag" key={t}>
                    {t}
                  </span>
                ))}
              </p>
            </li>
          ))}
        </ol>
      ) : null}
    </>
  );
}

function Decision({ match, abstained }: { match: MatchSkillResponse; abstained: boolean }) {
  if (abstained) {
    return (
      <div class="decision abstain" role="status">
        <strong>Abstained:</strong> no skill applies to this query, so search returns nothing and get_skill answers no match.
        {match.message ? <div class="small">{match.message}</div> : null}
      </div>
    );
  }
  switch (match.outcome) {
    case "MATCH_OUTCOME_MATCH":
      return (
        <div class="decision matched" role="status">
          <strong>Match:</strong> get_skill would load <a href={skillHref(match.skill_path)}>{match.skill_path}</a> (score {match.score.toFixed(3)},{" "}
          {match.strategy} strategy{match.phrasing > 0 ? ", through the restatement" : ""}).
        </div>
      );
    case "MATCH_OUTCOME_AMBIGUOUS":
      return (
        <div class="decision ambiguous" role="status">
          <strong>Ambiguous:</strong> {match.message}{" "}
          {match.candidates.map((c) => (
            <a key={c.skill_path} class="badge" href={skillHref(c.skill_path)}>
              {c.skill_path} {c.score.toFixed(2)}
            </a>
          ))}
        </div>
      );
    default:
      return (
        <div class="decision abstain" role="status">
          <strong>No match for get_skill:</strong> {match.message} Search still ranks the skills below.
        </div>
      );
  }
}

/** The excerpt with the matched terms marked. */
function highlight(text: string, terms: string[]) {
  const words = terms.filter((t) => t.length > 1).map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (!words.length) return text;
  const re = new RegExp(`(${words.join("|")})`, "gi");
  return text.split(re).map((part, i) => (i % 2 ? <mark key={i}>{part}</mark> : part));
}
