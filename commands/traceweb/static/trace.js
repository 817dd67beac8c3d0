// The page of `chain trace --web`. It reads the traces `chain trace` follows from /events
// (server-sent events: "trace" carries one JSON trace as the chain's /debug/apichain/traces
// serves it, "status" how following the chain goes: {text, ok}), lists the requests, and draws the
// selected one: one row a hop, a dot in the lane of the part of the chain that made it, a line
// from its parent's lane when the request changed hands, and a bar for when and how long.
"use strict";

// The lanes, left to right: the way a request goes in, then what the chain calls on.
const LANES = [
  ["client", "client"],
  ["aggregator", "aggregator"],
  ["core", "core"],
  ["extensions", "extensions"],
  ["not-found", "not found"],
  ["etcd", "etcd"],
  ["metrics-server", "metrics server"],
  ["kubelet", "kubelet"],
];
const LANE_INDEX = Object.fromEntries(LANES.map(([id], i) => [id, i]));
const SERVERS = new Set(["aggregator", "core", "extensions", "not-found"]);
const KEEP = 500; // requests the page holds; older ones go

const traces = new Map(); // trace ID → trace, in arrival order
const causedBy = new Map(); // span ID → IDs of traces with a link to it
let selected = null; // trace ID
let selectedHop = null; // span ID

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

function ms(v) {
  if (v >= 1000) return (v / 1000).toFixed(2) + "s";
  if (v >= 100) return v.toFixed(0) + "ms";
  return v.toFixed(2) + "ms";
}

// laneOf says which part of the chain made a span: the chain's servers by their spans' names,
// other processes by their service, storage by its name; any other step is made where its
// parent was.
function laneOf(span, parentLane) {
  const attrs = span.attributes || {};
  if (span.service === "metrics-server") return "metrics-server";
  if (span.service === "kubelet") return "kubelet";
  if (SERVERS.has(span.name)) return span.name;
  if (/etcd/i.test(span.name)) return "etcd";
  if (span.name.startsWith("storage ") && attrs["apichain.watch_cache"] !== "true") return "etcd";
  return parentLane === "client" ? "aggregator" : parentLane;
}

function walk(spans, f, depth = 0) {
  for (const s of spans || []) {
    f(s, depth);
    walk(s.children, f, depth + 1);
  }
}

// receive takes a trace from the stream: new, or a newer version of one the page has.
function receive(t) {
  const had = traces.has(t.traceID);
  traces.delete(t.traceID); // re-inserted last: the map's order is arrival order
  traces.set(t.traceID, t);
  walk(t.spans, (s) => {
    for (const l of s.links || []) {
      if (l.traceID === t.traceID) continue;
      const ids = causedBy.get(l.spanID) || new Set();
      ids.add(t.traceID);
      causedBy.set(l.spanID, ids);
    }
  });
  while (traces.size > KEEP) {
    const oldest = traces.keys().next().value;
    traces.delete(oldest);
    const item = document.querySelector(`#request-list li[data-trace-id="${oldest}"]`);
    if (item) item.remove();
  }
  const item = requestItem(t);
  const old = document.querySelector(`#request-list li[data-trace-id="${t.traceID}"]`);
  if (old) old.replaceWith(item);
  else $("request-list").prepend(item);
  if ((!had && $("follow").checked) || selected === null || selected === t.traceID) select(t.traceID);
}

function requestItem(t) {
  const r = t.request;
  const time = new Date(t.start).toLocaleTimeString([], { hour12: false }) + "." + String(new Date(t.start).getMilliseconds()).padStart(3, "0");
  return el("li", {
    "data-trace-id": t.traceID, "data-path": r.path, "data-verb": r.verb || "", "data-seq": String(t.seq),
    "data-shown-at": String(Date.now()), // when the page drew it (its test measures how soon)
    class: t.traceID === selected ? "selected" : "",
    onclick: () => { $("follow").checked = false; select(t.traceID); },
  },
    el("div", { class: "path" }, `${r.verb || ""} ${r.path}`),
    el("div", { class: "meta" },
      `${time} · ${r.user || "?"} · `,
      el("span", { class: "code-" + String(r.code || 0)[0] }, String(r.code || "")),
      ` · ${r.server || ""} · ${ms(t.durationMs)}`));
}

function select(traceID) {
  if (selected !== traceID) selectedHop = null;
  selected = traceID;
  for (const li of document.querySelectorAll("#request-list li")) {
    li.classList.toggle("selected", li.dataset.traceId === traceID);
  }
  draw(traces.get(traceID));
}

// draw lays the selected request out: a heading, then the lanes and one row a hop.
function draw(t) {
  const detail = $("detail");
  detail.replaceChildren();
  $("attributes").replaceChildren();
  if (!t) return;
  const r = t.request;
  detail.append(el("h2", {}, `${r.verb || ""} ${r.path} → ${r.code || "?"} (${r.server || "?"}) by ${r.user || "?"} in ${ms(t.durationMs)}`));
  if (t.droppedSpans) detail.append(el("p", { class: "hint" }, `${t.droppedSpans} spans of this request were not kept.`));
  if (t.notRecorded) detail.append(el("p", { class: "hint" }, `${t.notRecorded} requests served just before this one were not recorded: under load, the chain records at most --record-traces-per-second.`));
  const head = el("tr", {}, el("th", {}, "hop"), ...LANES.map(([, label]) => el("th", {}, label)), el("th", {}, "time"));
  const body = el("tbody");
  const start = Date.parse(t.start);
  const total = Math.max(t.durationMs, 0.001);
  addRows(body, t, t.spans, "client", 0, start, total, new Set([t.traceID]));
  detail.append(el("table", { class: "hops" }, el("thead", {}, head), body));
  if (selectedHop) {
    const row = body.querySelector(`tr.hop[data-span-id="${selectedHop}"]`);
    if (row) row.click();
  }
}

function addRows(body, t, spans, parentLane, depth, start, total, visiting) {
  for (const s of spans || []) {
    const lane = laneOf(s, parentLane);
    body.append(hopRow(t, s, lane, parentLane, depth, start, total));
    for (const l of s.links || []) {
      if (l.traceID === t.traceID) continue;
      const other = traces.get(l.traceID);
      body.append(noteRow(depth, "↪ linked to ", other, l.traceID));
    }
    for (const id of causedBy.get(s.spanID) || []) {
      const other = traces.get(id);
      if (!other || visiting.has(id)) continue;
      body.append(noteRow(depth, "↳ caused ", other, id));
      visiting.add(id);
      addRows(body, other, other.spans, lane, depth + 1, start, total, visiting);
      visiting.delete(id);
    }
    addRows(body, t, s.children, lane, depth + 1, start, total, visiting);
  }
}

function hopRow(t, s, lane, parentLane, depth, start, total) {
  const at = LANE_INDEX[lane], from = LANE_INDEX[parentLane];
  const lo = Math.min(at, from), hi = Math.max(at, from);
  const cells = LANES.map(([id], i) => {
    let cls = "lane";
    if (lo !== hi && i >= lo && i <= hi) cls += " pass" + (i === lo ? " from" : i === hi ? " to" : "");
    return el("td", { class: cls }, i === at ? el("span", { class: "dot lane-" + id, title: id }) : null);
  });
  const offset = Date.parse(s.start) - start;
  const left = Math.min(Math.max(offset / total * 100, 0), 100);
  const width = Math.min(s.durationMs / total * 100, 100 - left);
  const bar = el("div", { class: "bar" },
    el("span", { class: "lane-" + lane, style: `left:${left}%;width:${width}%` }),
    el("em", { style: `left:${Math.min(left + width, 85)}%` }, ms(s.durationMs)));
  const name = el("td", { class: "name", style: `padding-left:${depth * 1.2}em` }, s.name,
    s.service && s.service !== "apichain" ? el("span", { class: "service" }, ` [${s.service}]`) : null);
  const row = el("tr", {
    class: "hop" + (s.status === "error" ? " error" : ""),
    "data-name": s.name, "data-lane": lane, "data-span-id": s.spanID,
    onclick: () => showHop(row, s, offset),
  }, name, ...cells, el("td", { class: "time" }, bar));
  return row;
}

function noteRow(depth, what, other, traceID) {
  const label = other ? `request #${other.seq}: ${other.request.verb || ""} ${other.request.path} → ${other.request.code || "?"}` : `trace ${traceID.slice(0, 8)}…`;
  const link = el("a", { onclick: () => { if (traces.has(traceID)) { $("follow").checked = false; select(traceID); } } }, label);
  return el("tr", { class: "note" }, el("td", { colspan: String(LANES.length + 2), style: `padding-left:${depth * 1.2 + 1}em` }, what, link));
}

// showHop lists what the chain recorded of a hop: its attributes (the chain's own first), its
// status, its events and links.
function showHop(row, s, offset) {
  selectedHop = s.spanID;
  for (const r of document.querySelectorAll("tr.hop.selected")) r.classList.remove("selected");
  row.classList.add("selected");
  const rows = [
    ["service", s.service], ["kind", s.kind], ["started", `+${ms(offset)}`], ["took", ms(s.durationMs)],
    ["status", s.status ? s.status + (s.message ? ": " + s.message : "") : ""],
  ];
  const attrs = Object.entries(s.attributes || {}).sort(([a], [b]) =>
    (a.startsWith("apichain.") ? 0 : 1) - (b.startsWith("apichain.") ? 0 : 1) || a.localeCompare(b));
  rows.push(...attrs);
  for (const e of s.events || []) rows.push(["event", e.name + attrText(e.attributes)]);
  for (const l of s.links || []) rows.push(["link", `trace ${l.traceID} span ${l.spanID}`]);
  $("attributes").replaceChildren(
    el("h3", {}, s.name),
    el("table", {}, el("tbody", {}, ...rows.filter(([, v]) => v).map(([k, v]) => el("tr", {}, el("td", {}, k), el("td", {}, String(v)))))));
}

function attrText(attrs) {
  const parts = Object.entries(attrs || {}).map(([k, v]) => `${k}=${v}`);
  return parts.length ? " (" + parts.join(", ") + ")" : "";
}

function setStatus(text, ok) {
  const s = $("status");
  s.textContent = text;
  s.className = ok ? "ok" : "bad";
}

$("clear").addEventListener("click", () => {
  traces.clear();
  causedBy.clear();
  selected = null;
  $("request-list").replaceChildren();
  draw(null);
});

const events = new EventSource("events");
events.addEventListener("trace", (e) => receive(JSON.parse(e.data)));
events.addEventListener("status", (e) => { const s = JSON.parse(e.data); setStatus(s.text, s.ok); });
events.addEventListener("error", () => setStatus("lost chain trace's stream: is `chain trace --web` still running? retrying…", false));
