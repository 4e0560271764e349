import { useMemo } from "preact/hooks";
import type { Schemas, Skill } from "@skillsd/client";
import { client, useLoad } from "../api.ts";
import { replaceQuery, skillHref, type Route } from "../router.ts";
import { ErrorBox, Placeholder, severityName } from "../ui.tsx";
import { shortName } from "./catalog.tsx";

type Diagnostic = Schemas["v1Diagnostic"];

const severities = ["error", "warning", "info"] as const;

async function load(signal: AbortSignal) {
  const [diags, skills] = await Promise.all([
    client.listDiagnostics({}, { signal }),
    (async () => {
      const out: Skill[] = [];
      for await (const s of client.iterateSkills({ page_size: 1000 }, { signal })) out.push(s);
      return out;
    })(),
  ]);
  return { diags, skills };
}

/**
 * Where a diagnostic's file can be seen: the skill whose file it is, and
 * the file to open there (a folder skill's SKILL.md can be read; a tree
 * file's page shows its content).
 */
function locate(d: Diagnostic, skills: Map<string, Skill>): { skill: string; file?: string } | undefined {
  const key = (path: string) => d.source + "\u0000" + path;
  if (d.file.endsWith("/SKILL.md") || d.file === "SKILL.md") {
    const path = d.file === "SKILL.md" ? "" : d.file.slice(0, -"/SKILL.md".length);
    const s = skills.get(key(path));
    if (s) return { skill: s.skill_path, file: "SKILL.md" };
  }
  if (d.file.endsWith(".md")) {
    const s = skills.get(key(d.file.slice(0, -3)));
    if (s) return { skill: s.skill_path };
  }
  // A companion file: the longest skill folder that holds it.
  const parts = d.file.split("/");
  for (let n = parts.length - 1; n > 0; n--) {
    const s = skills.get(key(parts.slice(0, n).join("/")));
    if (s && s.layout === "LAYOUT_FOLDER") return { skill: s.skill_path, file: parts.slice(n).join("/") };
  }
  return undefined;
}

export function DiagnosticsPage({ route }: { route: Route }) {
  const res = useLoad(load, []);
  const severity = route.query.get("severity") ?? "";
  const source = route.query.get("source") ?? "";
  const set = (q: { severity?: string; source?: string }) => {
    replaceQuery("diagnostics", { severity, source, ...q });
    dispatchEvent(new HashChangeEvent("hashchange"));
  };
  const bySkill = useMemo(() => {
    const m = new Map<string, Skill>();
    for (const s of res.data?.skills ?? []) m.set(s.source + "\u0000" + s.skill_path, s);
    return m;
  }, [res.data]);
  const all = res.data?.diags.diagnostics ?? [];
  const sources = [...new Set(all.map((d) => d.source))];
  const shown = all.filter((d) => (!severity || severityName(d.severity) === severity) && (!source || d.source === source));
  return (
    <div class="diagnostics-page">
      <h1>Diagnostics</h1>
      <p class="muted">
        Every problem the loader found, in every source. A broken file costs that file, never the catalog.{" "}
        {res.data ? (
          <>
            <strong>{res.data.diags.error_count}</strong> errors, <strong>{res.data.diags.warning_count}</strong> warnings.
          </>
        ) : null}
      </p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="sev">Severity</label>
          <select id="sev" value={severity} onChange={(e) => set({ severity: (e.target as HTMLSelectElement).value })}>
            <option value="">all</option>
            {severities.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="src">Source</label>
          <select id="src" value={source} onChange={(e) => set({ source: (e.target as HTMLSelectElement).value })}>
            <option value="">all</option>
            {sources.map((s) => (
              <option key={s} value={s}>
                {shortName(s)}
              </option>
            ))}
          </select>
        </div>
        <p class="muted small count" aria-live="polite">
          {res.data ? `${shown.length} of ${all.length} shown` : " "}
        </p>
      </form>
      {res.error ? <ErrorBox error={res.error} retry={res.reload} /> : null}
      {!res.data && !res.error ? <Placeholder lines={8} /> : null}
      {res.data && !shown.length ? <p class="empty">No diagnostics{severity || source ? " match these filters" : ": every file loaded cleanly"}.</p> : null}
      {shown.length ? (
        <div class="table-wrap">
          <table class="diags">
            <thead>
              <tr>
                <th scope="col">Severity</th>
                <th scope="col">File</th>
                <th scope="col">Problem</th>
                <th scope="col">Source</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((d, i) => {
                const loc = locate(d, bySkill);
                const label = `${d.file}${d.line ? `:${d.line}` : ""}`;
                return (
                  <tr key={i}>
                    <td>
                      <span class={`badge sev-${severityName(d.severity)}`}>{severityName(d.severity)}</span>
                    </td>
                    <td class="mono">
                      {loc ? (
                        <a class="diag-link" href={skillHref(loc.skill, loc.file, d.line || undefined)}>
                          {label}
                        </a>
                      ) : (
                        label
                      )}
                    </td>
                    <td>
                      <span class="mono small">{d.code}</span> {d.message}
                    </td>
                    <td class="small" title={d.source}>
                      {shortName(d.source)}
                    </td>
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
