import { useMemo, useState } from "preact/hooks";
import type { Schemas, Skill } from "@skillsd/client";
import { client, useLoad } from "../api.ts";
import { skillHref, type Route } from "../router.ts";
import { ErrorBox, Placeholder } from "../ui.tsx";
import { SkillView } from "./skill.tsx";

type Diagnostic = Schemas["v1Diagnostic"];

interface Catalog {
  skills: Skill[];
  sources: Schemas["v1SourceStatus"][];
  shadowed: Diagnostic[];
}

async function loadCatalog(signal: AbortSignal): Promise<Catalog> {
  const skills: Skill[] = [];
  const [status, diags] = await Promise.all([client.getCatalogStatus({}, { signal }), client.listDiagnostics({}, { signal })]);
  for await (const s of client.iterateSkills({ page_size: 1000 }, { signal })) skills.push(s);
  return { skills, sources: status.sources, shadowed: diags.diagnostics.filter((d) => d.code === "shadowed") };
}

/** A folder of the tree: sub-folders and the skills directly in it. */
interface Folder {
  name: string;
  folders: Map<string, Folder>;
  skills: Skill[];
}

function buildTree(skills: Skill[]): Folder {
  const root: Folder = { name: "", folders: new Map(), skills: [] };
  for (const s of skills) {
    const parts = s.skill_path.split("/");
    parts.pop();
    let f = root;
    for (const p of parts) {
      let next = f.folders.get(p);
      if (!next) {
        next = { name: p, folders: new Map(), skills: [] };
        f.folders.set(p, next);
      }
      f = next;
    }
    f.skills.push(s);
  }
  return root;
}

export function CatalogPage({ route }: { route: Route }) {
  const cat = useLoad(loadCatalog, []);
  const [filter, setFilter] = useState("");
  const selected = route.page === "skill" ? route.path : "";
  return (
    <div class={`catalog${selected ? " has-selection" : ""}`}>
      <section class="tree-pane" aria-labelledby="tree-title">
        <div class="pane-head">
          <h1 id="tree-title">Catalog</h1>
          <input
            type="search"
            placeholder="Filter skills"
            aria-label="Filter skills by path, name or description"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </div>
        {cat.error ? <ErrorBox error={cat.error} retry={cat.reload} /> : null}
        {!cat.data && !cat.error ? <Placeholder lines={12} /> : null}
        {cat.data ? <Tree cat={cat.data} filter={filter} selected={selected} /> : null}
      </section>
      <section class="detail-pane" aria-label="Skill">
        {selected ? (
          <SkillView path={selected} query={route.query} />
        ) : (
          <Overview cat={cat.data} />
        )}
      </section>
    </div>
  );
}

function Tree({ cat, filter, selected }: { cat: Catalog; filter: string; selected: string }) {
  const f = filter.trim().toLowerCase();
  const bySource = useMemo(() => {
    const out = new Map<string, Skill[]>();
    for (const src of cat.sources) out.set(src.name, []);
    for (const s of cat.skills) {
      if (f && !`${s.skill_path} ${s.name} ${s.description}`.toLowerCase().includes(f)) continue;
      const list = out.get(s.source) ?? [];
      list.push(s);
      out.set(s.source, list);
    }
    return out;
  }, [cat, f]);
  const shown = [...bySource.values()].reduce((n, l) => n + l.length, 0);
  return (
    <div class="tree">
      <p class="muted" aria-live="polite">
        {shown} of {cat.skills.length} skills
      </p>
      {[...bySource.entries()].map(([source, skills]) => {
        const st = cat.sources.find((s) => s.name === source);
        return (
          <div class="source" key={source}>
            <h2 class="source-name" title={st?.location}>
              <span class="badge">{st?.kind ?? "source"}</span> {shortName(source)}
            </h2>
            <FolderView folder={buildTree(skills)} selected={selected} depth={0} />
          </div>
        );
      })}
      {cat.shadowed.length ? (
        <div class="source shadowed">
          <h2 class="source-name">Shadowed</h2>
          <ul class="plain">
            {cat.shadowed.map((d) => (
              <li key={d.source + d.file}>
                <span class="mono">{d.file}</span> <span class="muted">({shortName(d.source)})</span>
                <div class="small">{d.message}</div>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}

function FolderView({ folder, selected, depth }: { folder: Folder; selected: string; depth: number }) {
  return (
    <ul class={depth ? "folder nested" : "folder"} role={depth ? "group" : undefined}>
      {[...folder.folders.values()]
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((sub) => (
          <li key={sub.name}>
            <details open>
              <summary>
                <span class="folder-name">{sub.name}/</span>
              </summary>
              <FolderView folder={sub} selected={selected} depth={depth + 1} />
            </details>
          </li>
        ))}
      {folder.skills.map((s) => (
        <li key={s.skill_path}>
          <a
            class="skill-link"
            href={skillHref(s.skill_path)}
            aria-current={s.skill_path === selected ? "page" : undefined}
            title={s.description}
          >
            <span class="skill-name">{s.skill_path.split("/").pop()}</span>
            {s.name !== s.skill_path && s.name !== s.skill_path.split("/").pop() ? <span class="muted small"> {s.name}</span> : null}
            {!s.routable ? <span class="badge warn">not routed</span> : null}
            {s.parent_path ? <span class="muted small inherit"> ↖ {s.parent_path}</span> : null}
          </a>
        </li>
      ))}
    </ul>
  );
}

function Overview({ cat }: { cat: Catalog | undefined }) {
  return (
    <div class="overview">
      <h2>Pick a skill</h2>
      <p class="muted">
        The tree lists every skill of every source, by folder. A skill's page shows its content resolved with inheritance, its frontmatter and its
        files.
      </p>
      <dl class="stats">
        <div>
          <dt>Skills</dt>
          <dd>{cat ? cat.skills.length : "…"}</dd>
        </div>
        <div>
          <dt>Routable</dt>
          <dd>{cat ? cat.skills.filter((s) => s.routable).length : "…"}</dd>
        </div>
        <div>
          <dt>Sources</dt>
          <dd>{cat ? cat.sources.length : "…"}</dd>
        </div>
        <div>
          <dt>Shadowed</dt>
          <dd>{cat ? cat.shadowed.length : "…"}</dd>
        </div>
      </dl>
    </div>
  );
}

/** The last folder of a source's name (sources are often absolute paths). */
export function shortName(source: string): string {
  const parts = source.split("/").filter(Boolean);
  return parts.length > 2 ? "…/" + parts.slice(-2).join("/") : source;
}
