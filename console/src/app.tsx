import { useEffect, useRef, useState } from "preact/hooks";
import { authPrompt, live, setToken, useStore, watchCatalog } from "./api.ts";
import { useRoute, type Route } from "./router.ts";
import { CatalogPage } from "./pages/catalog.tsx";
import { SearchPage } from "./pages/search.tsx";
import { DiagnosticsPage } from "./pages/diagnostics.tsx";
import { UsagePage } from "./pages/usage.tsx";
import { StatusPage } from "./pages/status.tsx";

const nav: { page: Route["page"]; label: string }[] = [
  { page: "catalog", label: "Catalog" },
  { page: "search", label: "Search" },
  { page: "diagnostics", label: "Diagnostics" },
  { page: "usage", label: "Usage" },
  { page: "status", label: "Status" },
];

const titles: Record<Route["page"], string> = {
  catalog: "Catalog",
  skill: "Skill",
  search: "Search playground",
  diagnostics: "Diagnostics",
  usage: "Usage",
  status: "Status",
};

export function App() {
  const route = useRoute();
  useEffect(() => watchCatalog(), []);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    document.title = `${route.page === "skill" ? route.path : titles[route.page]} · skillsd console`;
  }, [route.page, route.path]);
  const current = route.page === "skill" ? "catalog" : route.page;
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/catalog">
          skillsd
        </a>
        <nav aria-label="Pages">
          <ul>
            {nav.map((n) => (
              <li key={n.page}>
                <a href={`#/${n.page}`} aria-current={current === n.page ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <LiveBadge />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {route.page === "catalog" || route.page === "skill" ? <CatalogPage route={route} /> : null}
        {route.page === "search" ? <SearchPage route={route} /> : null}
        {route.page === "diagnostics" ? <DiagnosticsPage route={route} /> : null}
        {route.page === "usage" ? <UsagePage route={route} /> : null}
        {route.page === "status" ? <StatusPage /> : null}
      </main>
      <TokenDialog />
    </>
  );
}

function LiveBadge() {
  const l = useStore(live);
  const text = l.state === "live" ? `live · generation ${l.generation}` : l.state === "connecting" ? "connecting…" : "offline";
  return (
    <span class={`live live-${l.state}`} role="status" title="The catalog:watch stream: the console hears of every catalog change">
      <span class="dot" aria-hidden="true" />
      {text}
    </span>
  );
}

/** Asks for a bearer token when an API call answers 401. */
function TokenDialog() {
  const prompt = useStore(authPrompt);
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState("");
  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (prompt && !d.open) d.showModal();
    if (!prompt && d.open) d.close();
  }, [prompt]);
  return (
    <dialog ref={dialog} class="token" aria-labelledby="token-title" onCancel={(e) => e.preventDefault()}>
      <form
        method="dialog"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) setToken(value.trim());
          setValue("");
        }}
      >
        <h2 id="token-title">This server needs a token</h2>
        <p>{prompt?.hadToken ? "The token was refused: " : ""}{prompt?.message}</p>
        <label for="token-input">Bearer token</label>
        <input
          id="token-input"
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          required
        />
        <p class="hint">Sent as Authorization: Bearer … with every call of this tab, kept in this tab's session storage only. With GitHub sign-in, give the URL-safe base64 of your GitHub token.</p>
        <div class="actions">
          <button type="submit" class="primary">
            Use this token
          </button>
        </div>
      </form>
    </dialog>
  );
}
