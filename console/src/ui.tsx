// Small shared pieces of the pages.
import { describeError } from "./api.ts";

/** Grey bars of the size the content will have: no layout shift when it arrives. */
export function Placeholder({ lines = 3 }: { lines?: number }) {
  return (
    <div class="placeholder" aria-busy="true" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} class="bar" />
      ))}
    </div>
  );
}

export function ErrorBox({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div class="error" role="alert">
      <p>{describeError(error)}</p>
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A byte count for people: 1.2 kB. */
export function bytes(n: string | number): string {
  const v = Number(n);
  if (v < 1000) return `${v} B`;
  if (v < 1e6) return `${(v / 1e3).toFixed(1)} kB`;
  return `${(v / 1e6).toFixed(1)} MB`;
}

/** A time for people, in the browser's locale; "never" for null. */
export function when(t: string | null | undefined): string {
  if (!t) return "never";
  const d = new Date(t);
  return Number.isNaN(d.getTime()) ? t : d.toLocaleString();
}

/** The severity without its enum prefix, lower case. */
export function severityName(s: string): string {
  return s.replace(/^SEVERITY_/, "").toLowerCase();
}
