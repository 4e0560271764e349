// Hash routes: #/catalog, #/skill/<path>?file=…&line=…, #/search?q=…,
// #/diagnostics?severity=…&source=…, #/usage?days=…, #/status. The server
// serves one page; the part after # never reaches it.
import { useEffect, useState } from "preact/hooks";

export interface Route {
  page: "catalog" | "skill" | "search" | "diagnostics" | "usage" | "status";
  /** The skill path of #/skill/<path>. */
  path: string;
  query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, "");
  const [where = "", qs = ""] = raw.split("?", 2);
  const query = new URLSearchParams(qs);
  const [first = "", ...rest] = where.split("/");
  switch (first) {
    case "skill":
      return { page: "skill", path: rest.map(decodeURIComponent).join("/"), query };
    case "search":
    case "diagnostics":
    case "usage":
    case "status":
      return { page: first, path: "", query };
  }
  return { page: "catalog", path: "", query };
}

/** The href of a skill's page, optionally opening one of its files at a line. */
export function skillHref(path: string, file?: string, line?: number): string {
  const q = new URLSearchParams();
  if (file) q.set("file", file);
  if (line) q.set("line", String(line));
  const qs = q.toString();
  return "#/skill/" + path.split("/").map(encodeURIComponent).join("/") + (qs ? "?" + qs : "");
}

/** An href for a page with a query. */
export function pageHref(page: Route["page"], query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const qs = q.toString();
  return `#/${page}${qs ? "?" + qs : ""}`;
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return route;
}

/** Replaces the query of the current page without a new history entry. */
export function replaceQuery(page: Route["page"], query: Record<string, string | undefined>): void {
  history.replaceState(null, "", pageHref(page, query));
}
