import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import type { GetUsageStatsResponse } from "@skillsd/client";
import { isSkillsError } from "@skillsd/client";
import { client, useLoad } from "../api.ts";
import { replaceQuery, skillHref, type Route } from "../router.ts";
import { ErrorBox, Placeholder, when } from "../ui.tsx";

const windows = [7, 30, 90];

/** The series of the chart: DayCount fields, with their colours. */
const series = [
  { key: "served", label: "served", color: "#2f6fde" },
  { key: "searches", label: "searches", color: "#1c9a6b" },
  { key: "ambiguous", label: "ambiguous", color: "#c98a00" },
  { key: "no_match", label: "no match", color: "#d0453a" },
  { key: "feedback", label: "feedback", color: "#7a53c7" },
] as const;

export function UsagePage({ route }: { route: Route }) {
  const days = windows.includes(Number(route.query.get("days"))) ? Number(route.query.get("days")) : 30;
  const res = useLoad(
    (signal) => {
      const end = new Date();
      const start = new Date(end.getTime() - days * 86400_000);
      return client.getUsageStats({ start_time: start.toISOString(), end_time: end.toISOString(), top_n: 10 }, { signal });
    },
    [days],
  );
  const off = res.error && isSkillsError(res.error, "NOT_SUPPORTED");
  return (
    <div class="usage-page">
      <div class="page-head">
        <h1>Usage</h1>
        <div class="segmented" role="group" aria-label="Window">
          {windows.map((d) => (
            <a
              key={d}
              href={`#/usage?days=${d}`}
              aria-current={d === days ? "true" : undefined}
              onClick={(e) => {
                e.preventDefault();
                replaceQuery("usage", { days: String(d) });
                dispatchEvent(new HashChangeEvent("hashchange"));
              }}
            >
              {d} days
            </a>
          ))}
        </div>
      </div>
      {off ? (
        <div class="notice" role="status">
          <strong>Analytics is off on this server.</strong> {res.error!.message}
        </div>
      ) : res.error ? (
        <ErrorBox error={res.error} retry={res.reload} />
      ) : null}
      {!off ? <Usage stats={res.data} days={days} /> : null}
    </div>
  );
}

function Usage({ stats, days }: { stats: GetUsageStatsResponse | undefined; days: number }) {
  const feedback = (stats?.skills ?? []).filter((s) => Number(s.useful) + Number(s.not_useful) > 0);
  return (
    <>
      <dl class="stats">
        <div>
          <dt>Events</dt>
          <dd>{stats ? stats.total_events : "…"}</dd>
        </div>
        {series.map((s) => (
          <div key={s.key}>
            <dt>{s.label}</dt>
            <dd>{stats ? stats.by_day.reduce((n, d) => n + Number(d[s.key]), 0) : "…"}</dd>
          </div>
        ))}
      </dl>
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">Over the last {days} days</h2>
        <Chart stats={stats} days={days} />
      </section>
      <div class="columns">
        <section aria-labelledby="top-title">
          <h2 id="top-title">Top skills</h2>
          {!stats ? <Placeholder lines={5} /> : null}
          {stats && !stats.skills.length ? <p class="empty">No skill was served in this window.</p> : null}
          {stats && stats.skills.length ? (
            <div class="table-wrap">
              <table class="top-skills">
                <thead>
                  <tr>
                    <th scope="col">Skill</th>
                    <th scope="col" class="num">
                      Served
                    </th>
                    <th scope="col" class="num">
                      Ambiguous
                    </th>
                    <th scope="col" class="num">
                      Useful / not
                    </th>
                    <th scope="col">Last served</th>
                  </tr>
                </thead>
                <tbody>
                  {stats.skills.slice(0, 15).map((s) => (
                    <tr key={s.skill_path}>
                      <td>
                        <a href={skillHref(s.skill_path)}>{s.skill_path}</a>
                      </td>
                      <td class="num">{s.served}</td>
                      <td class="num">{s.ambiguous_appearances}</td>
                      <td class="num">
                        {s.useful} / {s.not_useful}
                      </td>
                      <td class="small">{when(s.last_served)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>
        <Contexts title="Matched nothing" id="nomatch" items={stats?.top_no_match} empty="Every request found a skill." />
        <Contexts title="Ambiguous" id="ambiguous" items={stats?.top_ambiguous} empty="No ambiguous request." />
        <section aria-labelledby="fb-title">
          <h2 id="fb-title">Feedback</h2>
          {!stats ? <Placeholder lines={4} /> : null}
          {stats && !feedback.length ? <p class="empty">No feedback in this window.</p> : null}
          <ul class="plain feedback">
            {feedback.map((s) => (
              <li key={s.skill_path}>
                <a href={skillHref(s.skill_path)}>{s.skill_path}</a>{" "}
                <span class="badge ok">{s.useful} useful</span> <span class="badge warn">{s.not_useful} not useful</span>
                {s.recent_comments.length ? (
                  <ul class="comments">
                    {s.recent_comments.map((c, i) => (
                      <li key={i}>“{c}”</li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}

function Contexts({ title, id, items, empty }: { title: string; id: string; items: { context: string; count: string }[] | undefined; empty: string }) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {!items ? <Placeholder lines={4} /> : null}
      {items && !items.length ? <p class="empty">{empty}</p> : null}
      {items && items.length ? (
        <ol class="contexts">
          {items.map((c) => (
            <li key={c.context}>
              <a href={`#/search?q=${encodeURIComponent(c.context)}`} title="Try it in the search playground">
                {c.context}
              </a>{" "}
              <span class="badge">{c.count}×</span>
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

/** The counts by day as lines, one per series, every day of the window. */
function Chart({ stats, days }: { stats: GetUsageStatsResponse | undefined; days: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || !stats) return;
    const byDay = new Map(stats.by_day.map((d) => [d.day, d]));
    const xs: number[] = [];
    const ys: number[][] = series.map(() => []);
    const end = new Date(stats.end_time ?? Date.now());
    for (let i = days - 1; i >= 0; i--) {
      const d = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate() - i));
      const key = d.toISOString().slice(0, 10);
      xs.push(d.getTime() / 1000);
      const row = byDay.get(key);
      series.forEach((s, j) => ys[j]!.push(row ? Number(row[s.key]) : 0));
    }
    const plot = new uPlot(
      {
        width: el.clientWidth,
        height: 240,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
        scales: { y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
        axes: [{ stroke: "currentColor", grid: { stroke: "rgba(128,128,128,0.15)" } }, { stroke: "currentColor", grid: { stroke: "rgba(128,128,128,0.15)" } }],
        series: [{ label: "day", value: (_u, v) => (v == null ? "" : new Date(v * 1000).toISOString().slice(0, 10)) }, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: true, size: 5 } }))],
        legend: { live: true },
      },
      [xs, ...ys],
      el,
    );
    const ro = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 240 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.destroy();
    };
  }, [stats, days]);
  const total = stats?.by_day.reduce((n, d) => n + series.reduce((m, s) => m + Number(d[s.key]), 0), 0) ?? 0;
  return (
    <figure class="chart">
      <div class="chart-box" ref={box} role="img" aria-label={`Events per day: ${series.map((s) => s.label).join(", ")}`} data-points={total} />
      <figcaption class="small muted">
        Served counts matches and loads; searches, ambiguous and no-match requests and feedback per day (UTC). {stats && !total ? "No events in this window." : ""}
      </figcaption>
      {stats ? (
        <details class="chart-table">
          <summary>The numbers</summary>
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  {series.map((s) => (
                    <th scope="col" class="num" key={s.key}>
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {stats.by_day.map((d) => (
                  <tr key={d.day}>
                    <td>{d.day}</td>
                    {series.map((s) => (
                      <td class="num" key={s.key}>
                        {d[s.key]}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </details>
      ) : null}
    </figure>
  );
}
