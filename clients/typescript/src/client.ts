import { errorFromAnswer, SkillsError, UnavailableError } from "./errors.js";
import {
  GeneratedClient,
  type CallOptions,
  type ListSkillsRequest,
  type OperationSpec,
  type ReadSkillFileRequest,
  type ReadSkillFileResponse,
} from "./gen/operations.js";
import type { components } from "./gen/openapi.js";

/** A skill as listed. */
export type Skill = components["schemas"]["v1Skill"];

/** Options of SkillsClient. */
export interface ClientOptions {
  /**
   * The skills-rest base URL ("http://127.0.0.1:8080"). Empty or omitted: the
   * page's own origin (a console served by skills-rest).
   */
  baseUrl?: string;
  /** The bearer token sent with every call; omitted: none. */
  token?: string;
  /** The fetch to use; omitted: the global fetch (Node 20+, browsers). */
  fetch?: typeof fetch;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
}

/**
 * The client of the skillsd REST API (skills-rest). Every route is a method
 * named after its RPC (listSkills, getSkill, searchSkills, …) taking the
 * RPC's request with proto field names; answers are the REST JSON, typed
 * from the OpenAPI 3 document (64-bit integers are strings, enums their
 * names). Errors are thrown as SkillsError subclasses.
 */
export class SkillsClient extends GeneratedClient {
  #baseUrl: string;
  #token: string | undefined;
  #fetch: typeof fetch;
  #headers: Record<string, string>;

  constructor(options: ClientOptions = {}) {
    super();
    this.#baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
    this.#token = options.token || undefined;
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== "function") throw new TypeError("SkillsClient: no fetch; pass options.fetch");
    this.#fetch = f.bind(globalThis);
    this.#headers = { ...options.headers };
  }

  /** Sets (or with undefined or "", clears) the bearer token of later calls. */
  setToken(token: string | undefined): void {
    this.#token = token || undefined;
  }

  /** Whether a token is set. */
  get hasToken(): boolean {
    return this.#token !== undefined;
  }

  /**
   * Every skill that matches request, following next_page_token from page
   * to page (page_size per request).
   */
  async *iterateSkills(request: ListSkillsRequest = {}, options?: CallOptions): AsyncIterableIterator<Skill> {
    for await (const page of this.listSkillsPages(request, options)) yield* page.skills;
  }

  /** Every page of ListSkills, starting at request.page_token. */
  async *listSkillsPages(request: ListSkillsRequest = {}, options?: CallOptions) {
    let token = request.page_token ?? "";
    for (;;) {
      const page = await this.listSkills({ ...request, page_token: token }, options);
      yield page;
      token = page.next_page_token;
      if (!token) return;
    }
  }

  /**
   * A whole file of a skill, page by page (max_bytes per page): text files
   * as one string, binary files as bytes.
   */
  async readWholeFile(request: ReadSkillFileRequest, options?: CallOptions): Promise<{ first: ReadSkillFileResponse; text: string; data: Uint8Array }> {
    let offset = request.offset ?? "0";
    let first: ReadSkillFileResponse | undefined;
    let text = "";
    const chunks: Uint8Array[] = [];
    for (;;) {
      const page = await this.readSkillFile({ ...request, offset }, options);
      first ??= page;
      if (page.binary) chunks.push(base64ToBytes(page.data));
      else text += page.text;
      if (!page.truncated) break;
      offset = page.next_offset;
    }
    const size = chunks.reduce((n, c) => n + c.length, 0);
    const data = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
    return { first, text, data };
  }

  protected async call<T>(spec: OperationSpec, request: object, options?: CallOptions): Promise<T> {
    const res = await this.#send(spec, request, options);
    return (await res.json()) as T;
  }

  protected async *stream<T>(spec: OperationSpec, request: object, options?: CallOptions): AsyncIterableIterator<T> {
    const res = await this.#send(spec, request, options);
    if (!res.body) throw new UnavailableError(res.status, "UNAVAILABLE", "the stream has no body");
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) yield streamMessage<T>(res.status, line);
        }
      }
      if (buf.trim()) yield streamMessage<T>(res.status, buf.trim());
    } catch (e) {
      if (e instanceof SkillsError || options?.signal?.aborted) throw e;
      throw new UnavailableError(0, "UNAVAILABLE", `the stream broke: ${String(e)}`, {}, { cause: e });
    } finally {
      await reader.cancel().catch(() => {});
    }
  }

  /** Builds the HTTP request of one operation and returns its 2xx answer. */
  async #send(spec: OperationSpec, request: object, options?: CallOptions): Promise<Response> {
    const fields = { ...(request as Record<string, unknown>) };
    let path = spec.path;
    for (const p of spec.pathParams) {
      const v = fields[p.name];
      delete fields[p.name];
      if (v === undefined || v === null || v === "") {
        throw new SkillsError(0, "INVALID_ARGUMENT", `${spec.id}: ${p.name} is required`);
      }
      const s = String(v);
      const enc = p.slashes ? s.split("/").map(encodeURIComponent).join("/") : encodeURIComponent(s);
      path = path.replace(`{${p.name}}`, enc);
    }
    const headers: Record<string, string> = { Accept: "application/json", ...this.#headers, ...options?.headers };
    if (this.#token) headers["Authorization"] = `Bearer ${this.#token}`;
    let body: string | undefined;
    if (spec.body) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(fields);
    } else {
      const q = new URLSearchParams();
      for (const name of spec.queryParams) {
        for (const v of [fields[name]].flat()) {
          if (v === undefined || v === null) continue;
          q.append(name, v instanceof Date ? v.toISOString() : String(v));
        }
      }
      const qs = q.toString();
      if (qs) path += "?" + qs;
    }
    let res: Response;
    try {
      res = await this.#fetch(this.#baseUrl + path, { method: spec.method, headers, body, signal: options?.signal });
    } catch (e) {
      if (options?.signal?.aborted) throw e;
      throw new UnavailableError(0, "UNAVAILABLE", `${spec.method} ${this.#baseUrl + spec.path}: ${String((e as Error)?.message ?? e)}`, {}, { cause: e });
    }
    if (res.ok) return res;
    let parsed: unknown = null;
    try {
      parsed = await res.json();
    } catch {
      // not JSON: a proxy's page; the status says enough
    }
    throw errorFromAnswer(res.status, parsed, res.headers.get("WWW-Authenticate"));
  }
}

function streamMessage<T>(status: number, line: string): T {
  let msg: { result?: T; error?: unknown };
  try {
    msg = JSON.parse(line) as { result?: T; error?: unknown };
  } catch (e) {
    throw new SkillsError(status, "INTERNAL", `a stream line is not JSON: ${line.slice(0, 120)}`, {}, { cause: e });
  }
  if (msg.error !== undefined) throw errorFromAnswer(status, { error: msg.error }, null);
  if (msg.result === undefined) throw new SkillsError(status, "INTERNAL", `a stream line has neither result nor error: ${line.slice(0, 120)}`);
  return msg.result;
}

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
