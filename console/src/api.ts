// The console's one client, its token and the state every page shares: the
// pending token prompt and the live catalog generation.
import { useEffect, useState } from "preact/hooks";
import { SkillsClient, UnauthenticatedError, isSkillsError } from "@skillsd/client";

const tokenKey = "skillsd.console.token";

function storedToken(): string | undefined {
  try {
    return sessionStorage.getItem(tokenKey) ?? undefined;
  } catch {
    return undefined; // storage blocked: the token lives in memory only
  }
}

/** The client of the skills-rest that serves this page (same origin). */
export const client = new SkillsClient({ token: storedToken() });

type Listener = () => void;

/** A small observable value. */
class Store<T> {
  #value: T;
  #listeners = new Set<Listener>();
  constructor(v: T) {
    this.#value = v;
  }
  get value(): T {
    return this.#value;
  }
  set(v: T): void {
    this.#value = v;
    for (const l of [...this.#listeners]) l();
  }
  subscribe(l: Listener): () => void {
    this.#listeners.add(l);
    return () => this.#listeners.delete(l);
  }
}

/** Uses a store's value in a component. */
export function useStore<T>(s: Store<T>): T {
  const [, force] = useState(0);
  useEffect(() => s.subscribe(() => force((n) => n + 1)), [s]);
  return s.value;
}

/** Why a token is asked for (the 401's message), or null when none is. */
export const authPrompt = new Store<{ message: string; hadToken: boolean } | null>(null);
/** Grows each time the token changes, so that pages load again. */
export const authEpoch = new Store(0);

/** Sets the token (empty: forget it) and reloads every page's data. */
export function setToken(token: string): void {
  client.setToken(token);
  try {
    if (token) sessionStorage.setItem(tokenKey, token);
    else sessionStorage.removeItem(tokenKey);
  } catch {
    // storage blocked
  }
  authPrompt.set(null);
  authEpoch.set(authEpoch.value + 1);
}

/** Opens the token prompt for a refused call. */
export function requireToken(e: UnauthenticatedError): void {
  if (!authPrompt.value) authPrompt.set({ message: e.message, hadToken: client.hasToken });
}

/** The state of one load. */
export interface Load<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  /** Loads again. */
  reload: () => void;
}

/**
 * Runs fn when the component mounts, when deps change and when the token
 * changes. A 401 opens the token prompt and keeps the load pending until a
 * token is given.
 */
export function useLoad<T>(fn: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Load<T> {
  const epoch = useStore(authEpoch);
  const [tick, setTick] = useState(0);
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  useEffect(() => {
    const ctl = new AbortController();
    setState((s) => ({ data: s.data, loading: true }));
    fn(ctl.signal).then(
      (data) => !ctl.signal.aborted && setState({ data, loading: false }),
      (error: Error) => {
        if (ctl.signal.aborted) return;
        if (error instanceof UnauthenticatedError) {
          requireToken(error);
          return; // stays loading until the token changes
        }
        setState({ error, loading: false });
      },
    );
    return () => ctl.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, epoch, tick]);
  return { ...state, data: state.data, error: state.error, reload: () => setTick((t) => t + 1) };
}

/** The live state of the catalog, from the catalog:watch stream. */
export interface Live {
  state: "connecting" | "live" | "offline";
  generation: string;
  /** The last change's summary. */
  last: string;
}

export const live = new Store<Live>({ state: "connecting", generation: "", last: "" });

/** Follows catalog:watch for the page's lifetime, reconnecting with a back-off. */
export function watchCatalog(): () => void {
  let stopped = false;
  let ctl: AbortController | undefined;
  let delay = 1000;
  const loop = async () => {
    while (!stopped) {
      ctl = new AbortController();
      try {
        for await (const m of client.watchCatalog({}, { signal: ctl.signal })) {
          delay = 1000;
          const parts = [
            m.added.length ? `${m.added.length} added` : "",
            m.changed.length ? `${m.changed.length} changed` : "",
            m.removed.length ? `${m.removed.length} removed` : "",
          ].filter(Boolean);
          live.set({ state: "live", generation: m.generation, last: m.initial ? live.value.last : parts.join(", ") });
        }
      } catch (e) {
        if (stopped) return;
        if (e instanceof UnauthenticatedError) {
          requireToken(e);
          live.set({ ...live.value, state: "offline" });
          await new Promise<void>((resolve) => {
            const off = authEpoch.subscribe(() => {
              off();
              resolve();
            });
          });
          continue;
        }
      }
      if (stopped) return;
      live.set({ ...live.value, state: "offline" });
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 30_000);
    }
  };
  void loop();
  return () => {
    stopped = true;
    ctl?.abort();
  };
}

/** A message for an error, with what to do about it when that is known. */
export function describeError(e: Error): string {
  if (isSkillsError(e, "NOT_SUPPORTED") && /analytics/i.test(e.message)) return e.message;
  if (isSkillsError(e)) return `${e.message} (${e.code})`;
  return e.message;
}
