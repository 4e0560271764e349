import { useEffect, useRef } from "preact/hooks";
import type { Schemas } from "@skillsd/client";
import { client, useLoad } from "../api.ts";
import { skillHref } from "../router.ts";
import { bytes, ErrorBox, Placeholder, severityName } from "../ui.tsx";

type GetSkill = Schemas["v1GetSkillResponse"];

/** One part of a skill's resolved content: a banner and its text. */
interface Part {
  header: string;
  file: string;
  text: string;
}

/** Splits content at its "=== HEADER (from file) ===" banners. */
export function splitContent(content: string): Part[] {
  const parts: Part[] = [];
  let cur: Part | undefined;
  for (const line of content.split("\n")) {
    const m = /^=== (.*?)(?: \(from (.*)\))? ===$/.exec(line);
    if (m) {
      cur = { header: m[1] ?? "", file: m[2] ?? "", text: "" };
      parts.push(cur);
      continue;
    }
    if (!cur) {
      cur = { header: "", file: "", text: "" };
      parts.push(cur);
    }
    cur.text += line + "\n";
  }
  return parts.map((p) => ({ ...p, text: p.text.replace(/^\n+|\n+$/g, "") })).filter((p) => p.header || p.text);
}

/** The file of a skill that ReadSkillFile can read, for its own skill file. */
function ownFile(s: GetSkill): string | undefined {
  return s.skill?.layout === "LAYOUT_FOLDER" ? "SKILL.md" : undefined;
}

export function SkillView({ path, query }: { path: string; query: URLSearchParams }) {
  const res = useLoad((signal) => client.getSkill({ skill_path: path }, { signal }), [path]);
  const file = query.get("file") ?? "";
  const line = Number(query.get("line") ?? 0);
  if (res.error) {
    return (
      <div class="skill">
        <a class="back" href="#/catalog">
          ← Catalog
        </a>
        <ErrorBox error={res.error} retry={res.reload} />
      </div>
    );
  }
  const s = res.data;
  if (!s || s.skill?.skill_path !== path && s.skill?.name.toLowerCase() !== path.toLowerCase()) {
    return (
      <div class="skill">
        <Placeholder lines={16} />
      </div>
    );
  }
  const sk = s.skill!;
  const parts = splitContent(s.content);
  const own = ownFile(s);
  return (
    <article class="skill" aria-labelledby="skill-title">
      <a class="back" href="#/catalog">
        ← Catalog
      </a>
      <header class="skill-head">
        <h1 id="skill-title">{sk.name}</h1>
        <p class="mono muted">{sk.skill_path}</p>
        <p>{sk.description || <em class="muted">No description.</em>}</p>
        <p class="badges">
          <span class="badge">{sk.layout === "LAYOUT_TREE" ? "tree file" : "SKILL.md folder"}</span>
          {sk.routable ? <span class="badge ok">routable</span> : <span class="badge warn">not routed</span>}
          {sk.category ? <span class="badge">{sk.category}</span> : null}
          {sk.tags.map((t) => (
            <span class="badge tag" key={t}>
              #{t}
            </span>
          ))}
          {sk.keywords.length ? <span class="muted small">keywords: {sk.keywords.join(", ")}</span> : null}
        </p>
        <p class="small muted">source {sk.source}</p>
      </header>

      {s.diagnostics.length ? (
        <section aria-labelledby="sd-title">
          <h2 id="sd-title">Diagnostics</h2>
          <ul class="plain">
            {s.diagnostics.map((d, i) => (
              <li key={i} class={`diag sev-${severityName(d.severity)}`}>
                <span class={`badge sev-${severityName(d.severity)}`}>{severityName(d.severity)}</span>{" "}
                {own && d.line ? <a href={skillHref(sk.skill_path, own, d.line)}>{`${d.file}:${d.line}`}</a> : <span class="mono">{d.file}{d.line ? `:${d.line}` : ""}</span>}{" "}
                {d.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      {s.inheritance_chain.length > 1 ? (
        <nav class="chain" aria-label="Inheritance chain">
          Inherits:{" "}
          {s.inheritance_chain.map((p, i) => (
            <span key={p}>
              {i ? " → " : ""}
              {p === sk.skill_path ? <strong>{p}</strong> : <a href={skillHref(p)}>{p}</a>}
            </span>
          ))}
        </nav>
      ) : null}

      <section aria-labelledby="content-title">
        <h2 id="content-title">Content</h2>
        <p class="small muted">What an agent receives: the chain root → leaf, each part under its banner.</p>
        {parts.map((p, i) => {
          const mine = i === parts.length - 1;
          return (
            <div class={`part${mine ? " mine" : " inherited"}`} key={i}>
              {p.header ? (
                <div class="banner">
                  <span class="banner-kind">{mine ? "This skill" : "Inherited"}</span> {p.header}
                  {p.file ? <span class="muted"> · {p.file}</span> : null}
                </div>
              ) : null}
              <pre class="text">{p.text}</pre>
            </div>
          );
        })}
      </section>

      <section aria-labelledby="fm-title">
        <h2 id="fm-title">Frontmatter</h2>
        {s.frontmatter && Object.keys(s.frontmatter).length ? (
          <pre class="code">{JSON.stringify(s.frontmatter, null, 2)}</pre>
        ) : (
          <p class="muted">None.</p>
        )}
      </section>

      <Files s={s} own={own} file={file} line={line} />

      {s.assets.length || s.inherited_assets.length || s.scripts.length || s.inherited_scripts.length ? (
        <section aria-labelledby="decl-title">
          <h2 id="decl-title">Declared assets and scripts</h2>
          <ul class="plain">
            {[...s.assets, ...s.inherited_assets].map((a) => (
              <li key={"a" + a.from + a.file}>
                <span class="badge">{a.type || "asset"}</span> <span class="mono">{a.file}</span> {a.description}
                {a.from ? <span class="muted small"> (from {a.from})</span> : null}
              </li>
            ))}
            {[...s.scripts, ...s.inherited_scripts].map((sc) => (
              <li key={"s" + sc.from + sc.file}>
                <span class="badge">script · {sc.execution}</span> <span class="mono">{sc.file}</span> {sc.description}
                {sc.args.length ? <span class="muted small"> args: {sc.args.map((a) => a.name + (a.required ? "" : "?")).join(", ")}</span> : null}
                {sc.from ? <span class="muted small"> (from {sc.from})</span> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </article>
  );
}

function Files({ s, own, file, line }: { s: GetSkill; own: string | undefined; file: string; line: number }) {
  const sk = s.skill!;
  const rows = [
    ...(own ? [{ path: own, size_bytes: "", digest: "", mime_type: "text/markdown", text: true, skillFile: true }] : []),
    ...s.files.map((f) => ({ ...f, skillFile: false })),
  ];
  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      {rows.length ? (
        <div class="table-wrap">
          <table class="files">
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col" class="num">
                  Size
                </th>
                <th scope="col">Digest</th>
                <th scope="col">Type</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((f) => (
                <tr key={f.path} aria-current={f.path === file ? "true" : undefined}>
                  <td class="mono">
                    {f.text ? (
                      <a href={skillHref(sk.skill_path, f.path)} aria-label={`View ${f.path}`}>
                        {f.path}
                      </a>
                    ) : (
                      f.path
                    )}
                    {f.skillFile ? <span class="muted small"> (the skill file)</span> : null}
                  </td>
                  <td class="num">{f.size_bytes ? bytes(f.size_bytes) : ""}</td>
                  <td class="mono digest" title={f.digest}>
                    {f.digest ? f.digest.slice(0, 19) + "…" : ""}
                  </td>
                  <td class="small">{f.mime_type}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p class="muted">No companion files.</p>
      )}
      {file ? <Viewer skillPath={sk.skill_path} file={file} line={line} /> : null}
    </section>
  );
}

function Viewer({ skillPath, file, line }: { skillPath: string; file: string; line: number }) {
  const res = useLoad((signal) => client.readWholeFile({ skill_path: skillPath, file }, { signal }), [skillPath, file]);
  const target = useRef<HTMLLIElement>(null);
  useEffect(() => {
    target.current?.scrollIntoView({ block: "center" });
  }, [res.data, line]);
  return (
    <div class="viewer" aria-label={`File ${file}`}>
      <div class="viewer-head">
        <span class="mono">{file}</span>
        {res.data ? (
          <span class="muted small">
            {" "}
            · {bytes(res.data.first.size_bytes)} · {res.data.first.digest}
            {res.data.first.resolved_from ? ` · from ${res.data.first.resolved_from}` : ""}
          </span>
        ) : null}
        <a class="close" href={skillHref(skillPath)} aria-label="Close the file">
          ✕
        </a>
      </div>
      {res.error ? <ErrorBox error={res.error} /> : null}
      {!res.data && !res.error ? <Placeholder lines={8} /> : null}
      {res.data && res.data.first.binary ? <p class="muted">A binary file ({res.data.first.mime_type}).</p> : null}
      {res.data && !res.data.first.binary ? (
        <ol class="lines">
          {res.data.text.replace(/\n$/, "").split("\n").map((l, i) => (
            <li key={i} ref={i + 1 === line ? target : undefined} class={i + 1 === line ? "hit" : undefined} id={i + 1 === line ? "hit-line" : undefined}>
              <code>{l || " "}</code>
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}
