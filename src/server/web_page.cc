#include "server/web_page.h"

#include "gpuplan/model.h"

namespace gpuplan::server {
namespace {

// The page; MODEL_OPTIONS is replaced by the zoo's names. Kept as one raw string so it is
// reviewed as HTML. The script builds every element with createElement/textContent.
constexpr std::string_view kPage = R"HTML(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gpuplan</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 72em; }
  h1 { font-size: 1.4em; margin: 0 0 .2em; }
  form { display: grid; grid-template-columns: repeat(auto-fill, minmax(13em, 1fr)); gap: .6em 1em;
         background: #f5f5f7; padding: 1em; border-radius: 6px; }
  label { display: flex; flex-direction: column; font-size: .85em; color: #555; }
  input, select { font: inherit; padding: .25em; }
  button { font: inherit; padding: .4em 1.2em; align-self: end; }
  table { border-collapse: collapse; margin: 1em 0; width: 100%; }
  th, td { border-bottom: 1px solid #ddd; padding: .3em .5em; text-align: left; }
  td.num { text-align: right; font-variant-numeric: tabular-nums; }
  tr:first-child td { background: #eef6ee; }
  .error { color: #a00; white-space: pre-wrap; }
  .warning { color: #8a5a00; } .info { color: #335; } .critical { color: #a00; }
  #status { color: #666; }
</style>
</head>
<body>
<h1>gpuplan</h1>
<p>Which Alibaba Cloud GPU instances to rent for a deep-learning job, why, what it costs and how
long it takes. The same answer as <code>gpuplan plan --json</code>, from
<code>POST /v1/plan</code>.</p>
<form id="workload">
  <label>task <select name="task">
    <option>finetune</option><option>pretrain</option><option>inference</option>
  </select></label>
  <label>method (finetune) <select name="method">
    <option>lora</option><option>qlora</option><option>full</option>
  </select></label>
  <label>model <input name="model" list="models" value="llama-2-7b" required></label>
  <label>precision <select name="precision">
    <option>bf16</option><option>fp16</option><option>fp8</option><option>fp32</option>
  </select></label>
  <label>seq_len <input name="seq_len" type="number" min="1" value="2048"></label>
  <label>tokens (e.g. 100M) <input name="tokens" value="100M"></label>
  <label>global_batch <input name="global_batch" type="number" min="1" value="32"></label>
  <label>region (optional) <input name="region" placeholder="cn-hangzhou"></label>
  <label>objective <select name="objective">
    <option>cost</option><option>time</option><option>cost_within_deadline</option>
    <option>time_within_budget</option>
  </select></label>
  <label>top <input name="top" type="number" min="1" max="1000" value="10"></label>
  <button type="submit">Plan</button>
</form>
<datalist id="models">MODEL_OPTIONS</datalist>
<p id="status"></p>
<div id="result"></div>
<script>
"use strict";
const form = document.getElementById("workload");
const result = document.getElementById("result");
const statusLine = document.getElementById("status");

// Every string reaches the page as a text node: no markup from the server or the user.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}
function num(x, digits) {
  return typeof x === "number" ? x.toLocaleString(undefined, {maximumFractionDigits: digits}) : "-";
}

function workloadBody() {
  const f = new FormData(form);
  const w = {task: f.get("task"), model: f.get("model"), precision: f.get("precision")};
  if (w.task === "finetune") w.method = f.get("method");
  for (const key of ["seq_len", "global_batch"]) {
    const v = f.get(key);
    if (v) w[key] = Number(v);
  }
  if (f.get("tokens") && w.task !== "inference") w.tokens = f.get("tokens");
  return w;
}

function query() {
  const f = new FormData(form);
  const q = new URLSearchParams();
  if (f.get("top")) q.set("top", f.get("top"));
  if (f.get("region")) q.set("region", f.get("region"));
  q.set("objective", f.get("objective"));
  return q.toString();
}

function showError(err) {
  let text = err.message || "request failed";
  if (err.field) text += "  (field: " + err.field + ")";
  result.replaceChildren(el("p", text, "error"));
}

function showPlan(plan) {
  const parts = [];
  const cands = plan.candidates || [];
  if (cands.length === 0) {
    parts.push(el("p", "No instance type can run this workload under its constraints. Reasons:"));
    const ul = el("ul");
    for (const r of (plan.rejected || []).slice(0, 30)) {
      ul.append(el("li", r.instance + ": " + r.reason));
    }
    parts.push(ul);
  } else {
    const table = el("table");
    const head = el("tr");
    for (const h of ["#", "instance", "gpu", "nodes", "gpus", "region", "billing", "layout",
                     "GiB/GPU", "hours", "cost"]) head.append(el("th", h));
    table.append(head);
    cands.forEach((c, i) => {
      const tr = el("tr");
      const l = c.layout || {};
      const cells = [
        [i + 1], [c.instance], [c.gpu], [c.nodes, "num"], [c.gpus, "num"], [c.region], [c.billing],
        ["tp" + l.tp + " pp" + l.pp + " dp" + l.dp + " zero" + l.zero],
        [num(c.memory && c.memory.per_gpu_gib, 1), "num"],
        [num(c.time && c.time.job_hours, 2), "num"],
        [num(c.cost && c.cost.total, 2) + " " + (c.cost ? c.cost.currency : ""), "num"]];
      for (const [v, cls] of cells) tr.append(el("td", v, cls));
      table.append(tr);
    });
    parts.push(table);
    const best = cands[0];
    parts.push(el("h2", "Why " + best.instance));
    parts.push(el("p", best.why));
    if ((best.advice || []).length) {
      parts.push(el("h2", "Advice"));
      const ul = el("ul");
      for (const a of best.advice) {
        const li = el("li", null, a.severity);
        li.append(el("strong", "[" + a.severity + "] " + a.rule + ": "),
                  document.createTextNode(a.message));
        ul.append(li);
      }
      parts.push(ul);
    }
  }
  if ((plan.notes || []).length) {
    parts.push(el("h2", "Notes"));
    const ul = el("ul");
    for (const n of plan.notes) ul.append(el("li", n));
    parts.push(ul);
  }
  parts.push(el("p", (plan.evaluated || 0) + " configurations evaluated; " +
                     (plan.rejected || []).length + " instance types rejected."));
  result.replaceChildren(...parts);
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  statusLine.textContent = "planning...";
  try {
    const response = await fetch("/v1/plan?" + query(), {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify(workloadBody())});
    const body = await response.json();
    statusLine.textContent = "";
    if (!response.ok) showError(body.error || {});
    else showPlan(body);
  } catch (e) {
    statusLine.textContent = "";
    showError({message: String(e)});
  }
});
</script>
</body>
</html>
)HTML";

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string WebPage(const ModelZoo& zoo) {
  std::string options;
  for (const ModelArch& m : zoo.models) options += "<option value=\"" + HtmlEscape(m.name) + "\">";
  constexpr std::string_view kSlot = "MODEL_OPTIONS";
  std::string page(kPage);
  page.replace(page.find(kSlot), kSlot.size(), options);
  return page;
}

}  // namespace gpuplan::server
