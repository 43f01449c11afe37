// The sutura console. Plain script, no build step, nothing fetched but this server's routes.
// Every byte that came from a data system or a catalog author is set with textContent (or
// as an attribute value through setAttribute on a fixed attribute name): never innerHTML,
// never a URL, never code. The page's Content-Security-Policy forbids inline script and eval.
// And it is shown visibly: every character of the escape set is written as its escape —
// the project's \uXXXX in text, JSON's own \uXXXX in JSON — so no byte shown is invisible
// or reorders what follows it, in any panel.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const state = { token: "", catalog: null, metrics: new Map(), filters: 0, syncing: false };
  const $ = (id) => document.getElementById(id);

  // An element with text children only: strings become text nodes, never markup.
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === false || value === null || value === undefined) continue;
      node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The project's escape set (docs/text-format.md): every character Python's isprintable()
  // rejects (other than the ASCII space), every Default_Ignorable_Code_Point, and the
  // backslash, shown as \t \n \r \\ or \uXXXX / \UXXXXXXXX in lowercase hex, so nothing
  // invisible or reordering reaches the reader and no value can draw a line or a row.
  const ESCAPED = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}\\]/u;
  const NAMED = { "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\" };

  function escapeChar(ch) {
    if (ch === " " || !ESCAPED.test(ch)) return null;
    if (NAMED[ch]) return NAMED[ch];
    const point = ch.codePointAt(0);
    return point > 0xffff ? "\\U" + point.toString(16).padStart(8, "0") : "\\u" + point.toString(16).padStart(4, "0");
  }

  // Text as nodes: plain runs as text nodes, each escape as a marked span holding its text.
  function escaped(text) {
    const fragment = document.createDocumentFragment();
    let run = "";
    for (const ch of text) {
      const shown = escapeChar(ch);
      if (shown === null) { run += ch; continue; }
      if (run) fragment.append(document.createTextNode(run));
      run = "";
      fragment.append(h("span", { class: "esc" }, shown));
    }
    if (run) fragment.append(document.createTextNode(run));
    return fragment;
  }

  // A cell adds the cell rules: NULL is \N, the empty string \e, a leading " is \u0022,
  // and the literal texts \N and \e get their backslash escaped like any other.
  function escapedCell(cell) {
    if (cell === null) return h("span", { class: "esc" }, "\\N");
    if (cell === "") return h("span", { class: "esc" }, "\\e");
    if (cell.startsWith('"')) {
      const fragment = document.createDocumentFragment();
      fragment.append(h("span", { class: "esc" }, "\\u0022"), escaped(cell.slice(1)));
      return fragment;
    }
    return escaped(cell);
  }

  // Prose keeps its lines (split on \n only); everything else in a line is escaped.
  function escapedProse(text) {
    const fragment = document.createDocumentFragment();
    text.split("\n").forEach((line, i) => {
      if (i) fragment.append(document.createTextNode("\n"));
      fragment.append(escaped(line));
    });
    return fragment;
  }

  function escapeString(text) {
    let out = "";
    for (const ch of text) { const shown = escapeChar(ch); out += shown === null ? ch : shown; }
    return out;
  }

  // JSON as text: every escape-set character the JSON holds raw (JSON escapes only the C0
  // controls, the quote and the backslash) is written as JSON's own escape, \uXXXX, a
  // surrogate pair above U+FFFF, so the text shows it and is still the same JSON. Outside
  // strings JSON has only ASCII, and its own line breaks and spaces are kept.
  function jsonEscapeOf(ch) {
    if (ch === "\n" || ch === " " || ch === "\\" || !ESCAPED.test(ch)) return null;
    let out = "";
    for (let i = 0; i < ch.length; i += 1) out += "\\u" + ch.charCodeAt(i).toString(16).padStart(4, "0");
    return out;
  }

  function jsonString(text) {
    let out = "";
    for (const ch of text) { const shown = jsonEscapeOf(ch); out += shown === null ? ch : shown; }
    return out;
  }

  // The same, as nodes: each escape a marked span.
  function jsonShown(text) {
    const fragment = document.createDocumentFragment();
    let run = "";
    for (const ch of text) {
      const shown = jsonEscapeOf(ch);
      if (shown === null) { run += ch; continue; }
      if (run) fragment.append(document.createTextNode(run));
      run = "";
      fragment.append(h("span", { class: "esc" }, shown));
    }
    if (run) fragment.append(document.createTextNode(run));
    return fragment;
  }

  // A cell as one line of text, by the same rules as escapedCell.
  function cellString(cell) {
    if (cell === null) return "\\N";
    if (cell === "") return "\\e";
    return cell.startsWith('"') ? "\\u0022" + escapeString(cell.slice(1)) : escapeString(cell);
  }

  function lines(texts) {
    return texts.join("\n");
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function say(message) {
    $("status").textContent = message; // our sentences, or failureSentence's (escaped)
  }

  async function call(method, path, body) {
    const headers = { Accept: "application/json" };
    if (state.token) headers.Authorization = "Bearer " + state.token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, { method, headers, body, cache: "no-store", credentials: "omit" });
    const text = await response.text();
    let json = null;
    try { json = JSON.parse(text); } catch (_err) { json = null; }
    return { status: response.status, text, json };
  }

  // ---- catalog --------------------------------------------------------------------------

  function prose(value, label) {
    if (value === undefined || value === null) return null;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    return h("div", {}, h("span", { class: "prose-label" }, label), h("p", { class: "prose" }, escapedProse(text)));
  }

  function synonymsOf(name) {
    const terms = (state.catalog.glossary || []).filter((t) => t.means && t.means.metric === name);
    return terms.flatMap((t) => [t.term, ...(t.synonyms || [])]);
  }

  function metricItem(metric) {
    const dims = h("table", {},
      h("caption", {}, "Dimensions"),
      h("tr", {}, h("th", { scope: "col" }, "name"), h("th", { scope: "col" }, "allowed values")),
      ...metric.dimensions.map((d) => h("tr", {},
        h("td", {}, escaped(d.name), prose(d.description, "description")),
        h("td", {}, d.allowed_values ? lines(d.allowed_values.map(cellString)) : "—"))));
    const synonyms = synonymsOf(metric.name);
    const caveats = (metric.caveats || []).map((c) => h("div", {}, h("strong", {}, escaped("caveat: " + c.name)),
      prose(c.description, "caveat")));
    const use = h("button", { type: "button", class: "secondary" }, escaped("Ask about " + metric.name));
    use.addEventListener("click", () => { chooseMetric(metric.name); $("grain").focus(); });
    const item = h("li", { "data-metric": metric.name },
      h("h3", {}, escaped(metric.name)),
      prose(metric.description, "description (author's prose)"),
      // Shown only when the operator shows formulas (prompt.formulas): author text, escaped.
      metric.formula !== undefined ? h("p", { class: "formula" }, escaped("formula: " + metric.formula)) : null,
      h("p", {}, "grains: " + metric.grains.join(", ")),
      metric.data ? h("p", { class: "data" }, escaped("data: from " + metric.data.first + " to " +
        metric.data.last + " (as of " + metric.data.as_of + ")")) : null,
      synonyms.length ? h("p", {}, escaped("also called: " + synonyms.join(", "))) : null,
      dims, caveats, use);
    const words = [metric.name, ...synonyms, typeof metric.description === "string" ? metric.description : ""];
    item.dataset.search = words.join("\n").toLowerCase();
    return item;
  }

  function knowledge(catalog) {
    const box = clear($("knowledge"));
    const glossary = catalog.glossary || [];
    const notDefined = catalog.not_defined || [];
    const examples = catalog.examples || [];
    if (!glossary.length && !notDefined.length && !examples.length) {
      box.append(h("p", { class: "help" }, "This catalog has no knowledge documents."));
      return;
    }
    for (const term of glossary) {
      const means = [term.means.metric, term.means.dimension, term.means.value].filter((x) => x !== undefined);
      box.append(h("div", { class: "term" },
        h("p", {}, h("strong", {}, escaped("term: " + term.term)), escaped(" means " + means.join(" / ") +
          (term.synonyms.length ? " (also: " + term.synonyms.join(", ") + ")" : ""))),
        prose(term.description, "glossary")));
    }
    for (const item of notDefined) {
      box.append(h("div", {},
        h("p", {}, h("strong", {}, escaped("not defined: " + item.phrase)),
          escaped(item.synonyms.length ? " (also: " + item.synonyms.join(", ") + ")" : "")),
        prose(item.description, "not defined")));
    }
    for (const example of examples) {
      const load = h("button", { type: "button", class: "secondary" }, escaped("Load example " + example.name));
      load.addEventListener("click", () => { setQuestion(example.question); $("question-json").focus(); });
      box.append(h("div", {},
        h("p", {}, h("strong", {}, escaped("example: " + example.name))),
        h("ul", {}, ...example.asked.map((a) => h("li", {}, escaped(a)))),
        h("pre", { class: "half" }, jsonShown(JSON.stringify(example.question))),
        prose(example.description, "example"), load));
    }
  }

  // A metric names the shared dimensions it uses, each described once in catalog.dimensions;
  // the console reads each metric with all its dimensions described.
  function withShared(catalog) {
    const shared = new Map((catalog.dimensions || []).map((d) => [d.name, d]));
    const metrics = catalog.metrics.map((metric) => ({
      ...metric,
      dimensions: [...(metric.shared || []).map((use) => shared.get(use)),
        ...metric.dimensions],
    }));
    return { ...catalog, metrics };
  }

  function renderCatalog(described) {
    const catalog = withShared(described);
    state.catalog = catalog;
    state.metrics = new Map(catalog.metrics.map((m) => [m.name, m]));
    const p = catalog.provenance;
    clear($("definitions")).append(escaped("definitions " + p.definition_version + " · digest " +
      p.definition_digest + " · time zone " + p.time_zone + " · prose " + catalog.catalog_prose));
    const list = clear($("metrics"));
    for (const metric of catalog.metrics) list.append(metricItem(metric));
    knowledge(catalog);
    filterCatalog();
    buildChoices(catalog);
  }

  function filterCatalog() {
    const query = $("search").value.trim().toLowerCase();
    let shown = 0;
    for (const item of $("metrics").children) {
      const hit = !query || item.dataset.search.includes(query);
      item.hidden = !hit;
      if (hit) shown += 1;
    }
    $("search-count").textContent = shown + " of " + $("metrics").children.length + " metrics";
  }

  async function loadCatalog() {
    const started = performance.now();
    say("Loading the catalog…");
    const reply = await call("GET", "/v1/catalog");
    if (reply.status !== 200 || !reply.json) {
      say(failureSentence(reply) + (reply.status === 401 ? " Enter the access token." : ""));
      return false;
    }
    renderCatalog(reply.json);
    $("timing").dataset.catalogMs = String(performance.now());
    $("timing").dataset.catalogLoadMs = String(performance.now() - started);
    say("Catalog loaded: " + reply.json.metrics.length + " metrics.");
    return true;
  }

  async function loadCatalogText() {
    const reply = await call("POST", "/console/agent/describe_catalog", "");
    $("catalog-text").textContent = reply.json ? reply.json.text : failureSentence(reply);
  }

  // ---- question builder -----------------------------------------------------------------

  function checkbox(name, value, labelText, onChange) {
    const id = name + "-" + String(Math.random()).slice(2);
    const box = h("input", { type: "checkbox", id, name, value });
    box.addEventListener("change", onChange);
    return [box, h("label", { for: id }, escapeString(labelText))];
  }

  function chosen(name) {
    return [...document.querySelectorAll('input[name="' + name + '"]:checked')].map((b) => b.value);
  }

  function selectedMetrics() {
    return chosen("metric").map((n) => state.metrics.get(n)).filter(Boolean);
  }

  function options(select, values, keep) {
    const previous = keep ? select.value : null;
    clear(select);
    for (const value of values) select.append(h("option", { value }, cellString(value)));
    if (previous !== null && values.includes(previous)) select.value = previous;
  }

  function buildChoices(catalog) {
    const metrics = clear($("metric-choices"));
    for (const metric of catalog.metrics) {
      metrics.append(h("span", {}, ...checkbox("metric", metric.name, metric.name, onMetricsChanged)));
    }
    const first = catalog.metrics[0];
    if (first) chooseMetric(first.name);
  }

  function chooseMetric(name) {
    for (const box of document.querySelectorAll('input[name="metric"]')) box.checked = box.value === name;
    const range = rangeOfData(state.metrics.get(name));
    if (range) {
      $("range-between").checked = true;
      $("range-start").value = range.start;
      $("range-end").value = range.end;
    }
    onMetricsChanged();
  }

  // The range a metric's question starts from: the latest year its data covers whole, else
  // the days its data covers (end excluded); none when the catalog does not say where it is.
  function rangeOfData(metric) {
    const data = metric && metric.data;
    if (!data) return null;
    const lastYear = Number(data.last.slice(0, 4));
    const whole = data.last.slice(5) === "12-31" ? lastYear : lastYear - 1;
    if (data.first <= whole + "-01-01") return { start: whole + "-01-01", end: (whole + 1) + "-01-01" };
    const [y, m, d] = data.last.split("-").map(Number);
    return { start: data.first, end: new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10) };
  }

  function commonDimensions(metrics) {
    if (!metrics.length) return [];
    return metrics[0].dimensions.filter((d) => metrics.every((m) => m.dimensions.some((e) => e.name === d.name)));
  }

  function onMetricsChanged() {
    const metrics = selectedMetrics();
    const grains = metrics.length ? metrics[0].grains.filter((g) => metrics.every((m) => m.grains.includes(g))) : [];
    const exact = $("grain").options.length > 0 && $("grain").value === "";
    options($("grain"), grains, true);
    // No grain: one row per group over exactly the range (docs/questions.md).
    $("grain").append(h("option", { value: "" }, "none (exactly the range)"));
    if (exact || !grains.length) $("grain").value = "";
    options($("last-unit"), grains, true);
    options($("top-by"), [...metrics.map((m) => m.name), "period"], true);
    const keep = new Set(chosen("dimension"));
    const dims = clear($("dimension-choices"));
    for (const d of commonDimensions(metrics)) {
      const [box, label] = checkbox("dimension", d.name, d.name, renderQuestion);
      box.checked = keep.has(d.name);
      dims.append(h("span", {}, box, label));
    }
    for (const row of $("filters").children) fillFilterDimensions(row);
    renderQuestion();
  }

  function fillFilterDimensions(row) {
    const select = row.querySelector(".filter-dimension");
    options(select, commonDimensions(selectedMetrics()).map((d) => d.name), true);
    fillFilterValues(row);
  }

  function dimensionNamed(name) {
    return commonDimensions(selectedMetrics()).find((d) => d.name === name);
  }

  // How many values each filter op takes: one, two (between: low, high), none, or a list.
  const FILTER_OPS = [["eq", "equals"], ["in", "in"], ["not_in", "not in"], ["lt", "<"], ["le", "<="],
    ["gt", ">"], ["ge", ">="], ["between", "between"], ["is_null", "is null"], ["is_not_null", "is not null"]];
  const ONE_VALUE = ["eq", "lt", "le", "gt", "ge"];
  const NO_VALUE = ["is_null", "is_not_null"];

  function fillFilterValues(row) {
    const dim = dimensionNamed(row.querySelector(".filter-dimension").value);
    const op = row.querySelector(".filter-op").value;
    const slot = clear(row.querySelector(".filter-values"));
    const id = row.dataset.id + "-values";
    if (NO_VALUE.includes(op)) return;
    const one = ONE_VALUE.includes(op);
    slot.append(h("label", { for: id }, one ? "Value" : op === "between" ? "Low, then high" : "Values"));
    let control;
    if (dim && dim.allowed_values) {
      control = h("select", { id, multiple: !one, class: "values" });
      for (const value of dim.allowed_values) control.append(h("option", { value }, cellString(value)));
    } else {
      const hint = one ? "one value" : op === "between" ? "low\nhigh" : "one value per line";
      control = h("textarea", { id, rows: 2, class: "values", placeholder: hint });
    }
    control.addEventListener("change", renderQuestion);
    control.addEventListener("input", renderQuestion);
    slot.append(control);
  }

  function addFilter() {
    state.filters += 1;
    const id = "filter-" + state.filters;
    const dimension = h("select", { id: id + "-dimension", class: "filter-dimension" });
    const op = h("select", { id: id + "-op", class: "filter-op" },
      ...FILTER_OPS.map(([value, label]) => h("option", { value }, label)));
    const remove = h("button", { type: "button", class: "secondary" }, "Remove filter");
    const row = h("div", { class: "filter", "data-id": id },
      h("label", { for: id + "-dimension" }, "Dimension"), dimension,
      h("label", { for: id + "-op" }, "Operator"), op,
      h("span", { class: "filter-values" }), remove);
    dimension.addEventListener("change", () => { fillFilterValues(row); renderQuestion(); });
    op.addEventListener("change", () => { fillFilterValues(row); renderQuestion(); });
    remove.addEventListener("click", () => { row.remove(); renderQuestion(); $("add-filter").focus(); });
    $("filters").append(row);
    fillFilterDimensions(row);
    renderQuestion();
    if (!state.syncing) dimension.focus();
    return row;
  }

  function filterOf(row) {
    const dimension = row.querySelector(".filter-dimension").value;
    const op = row.querySelector(".filter-op").value;
    const control = row.querySelector(".values");
    const values = !control ? [] : control.tagName === "SELECT"
      ? [...control.selectedOptions].map((o) => o.value)
      : control.value.split("\n").filter((v) => v !== "");
    const at = (i) => (values[i] === undefined ? "" : values[i]);
    if (NO_VALUE.includes(op)) return { op, dimension };
    if (ONE_VALUE.includes(op)) return { op, dimension, value: at(0) };
    if (op === "between") return { op, dimension, low: at(0), high: at(1) };
    return { op, dimension, values };
  }

  function questionOfForm() {
    const question = { metrics: chosen("metric") };
    if ($("grain").value) question.grain = $("grain").value;
    if ($("range-last").checked) {
      const last = { count: Number($("last-count").value), unit: $("last-unit").value };
      if ($("last-current").checked) last.include_current = true;
      question.range = { last };
    } else {
      question.range = { start: $("range-start").value, end: $("range-end").value };
    }
    const dimensions = chosen("dimension");
    if (dimensions.length) question.dimensions = dimensions;
    const filters = [...$("filters").children].map(filterOf);
    if (filters.length) question.filters = filters;
    if ($("top-n").value) {
      question.top = { n: Number($("top-n").value), by: $("top-by").value, direction: $("top-direction").value };
      if ($("top-per").checked) question.top.per = "period";
    }
    if ($("compare").value) question.compare = { to: $("compare").value };
    if ($("window").value === "running") question.window = { running: true };
    if ($("window").value === "trailing") question.window = { trailing: Number($("window-trailing").value) };
    if ($("fill").checked) question.fill = true;
    return question;
  }

  const FORM_FIELDS = ["metrics", "grain", "range", "dimensions", "filters", "top", "compare", "window", "fill"];

  // The form's fields, with every other field already in the JSON box kept as written (the
  // question fields the forms do not offer survive an edit of the form).
  function renderQuestion() {
    if (state.syncing) return;  // the form follows the JSON box: the box is not rewritten
    const kept = {};
    try {
      const current = JSON.parse($("question-json").value);
      if (current && typeof current === "object" && !Array.isArray(current)) {
        for (const [key, value] of Object.entries(current)) if (!FORM_FIELDS.includes(key)) kept[key] = value;
      }
    } catch (_err) { /* not JSON yet: the form's question replaces it */ }
    $("question-json").value = jsonString(JSON.stringify({ ...questionOfForm(), ...kept }, null, 2));
  }

  // The JSON box edited by hand: the form shows what it says, as far as it can hold it, and
  // the box keeps what was typed.
  function syncForm() {
    let question = null;
    try { question = JSON.parse($("question-json").value); } catch (_err) { return; }
    if (!question || typeof question !== "object" || !Array.isArray(question.metrics)) return;
    state.syncing = true;
    try { setQuestion(question, false); } finally { state.syncing = false; }
  }

  // Put a question (an example's) into the form as far as the form can hold it; the JSON
  // box holds it exactly either way.
  function setQuestion(question, echo = true) {
    for (const box of document.querySelectorAll('input[name="metric"]')) box.checked = question.metrics.includes(box.value);
    onMetricsChanged();
    $("grain").value = question.grain || "";
    const range = question.range || {};
    $("range-last").checked = Boolean(range.last);
    $("range-between").checked = !range.last;
    if (range.last) {
      $("last-count").value = range.last.count;
      $("last-unit").value = range.last.unit;
      $("last-current").checked = Boolean(range.last.include_current);
    } else {
      $("range-start").value = range.start || "";
      $("range-end").value = range.end || "";
    }
    for (const box of document.querySelectorAll('input[name="dimension"]')) box.checked = (question.dimensions || []).includes(box.value);
    clear($("filters"));
    for (const filter of question.filters || []) {
      const row = addFilter();
      row.querySelector(".filter-dimension").value = filter.dimension;
      row.querySelector(".filter-op").value = filter.op;
      fillFilterValues(row);
      const values = (ONE_VALUE.includes(filter.op) ? [filter.value]
        : filter.op === "between" ? [filter.low, filter.high] : filter.values || []).map(String);
      const control = row.querySelector(".values");
      if (!control) continue;
      if (control.tagName === "SELECT") {
        for (const option of control.options) option.selected = values.includes(option.value);
      } else {
        control.value = values.join("\n");
      }
    }
    $("top-n").value = question.top ? question.top.n : "";
    if (question.top) {
      $("top-by").value = question.top.by;
      $("top-direction").value = question.top.direction || "desc";
    }
    $("top-per").checked = Boolean(question.top && question.top.per === "period");
    $("compare").value = question.compare ? question.compare.to : "";
    const win = question.window || {};
    $("window").value = win.running ? "running" : win.trailing ? "trailing" : "";
    if (win.trailing) $("window-trailing").value = win.trailing;
    $("fill").checked = Boolean(question.fill);
    if (echo) $("question-json").value = jsonString(JSON.stringify(question, null, 2));
  }

  async function copyJson() {
    const text = $("question-json").value;
    try {
      await navigator.clipboard.writeText(text);
      say("Question JSON copied.");
    } catch (_err) {
      $("question-json").select();
      say("Select-all done: copy with the keyboard (the clipboard is not available here).");
    }
  }

  // ---- compile --------------------------------------------------------------------------

  async function compile() {
    const reply = await call("POST", "/console/compile", $("question-json").value);
    const section = $("compiled");
    section.hidden = false;
    const params = clear($("compiled-params"));
    params.append(h("caption", {}, "Parameters"));
    if (reply.status !== 200 || !reply.json || reply.json.sql === undefined) {
      $("compiled-sql").textContent = failureSentence(reply); // escaped
      $("compiled-plan").textContent = "";
      say("The question does not compile.");
      return;
    }
    const view = reply.json;
    // The statement names the authors' tables and columns: its lines are kept, every other
    // character a name may hold is escaped.
    clear($("compiled-sql")).append(escapedProse("-- dialect: " + view.dialect + "\n" + view.sql));
    params.append(h("tr", {}, h("th", { scope: "col" }, "$"), h("th", { scope: "col" }, "type"),
      h("th", { scope: "col" }, "value")));
    for (const p of view.parameters) {
      params.append(h("tr", {}, h("td", {}, "$" + p.position), h("td", {}, p.type), h("td", {}, escaped(p.text))));
    }
    clear($("compiled-plan")).append(escapedProse(view.plan.join("\n")));
    say("Compiled for " + view.dialect + "; nothing was run.");
  }

  // ---- answer ---------------------------------------------------------------------------

  function failureSentence(reply) {
    const body = reply.json;
    if (body && body.reason) return escapeString(body.reason.code + " (" + body.reason.status + "): " + body.reason.detail);
    if (body && body.code) return escapeString(body.code + " (" + body.status + "): " + body.detail);
    return "HTTP " + reply.status;
  }

  function askedQuestion() {
    try { return JSON.parse($("question-json").value); } catch (_err) { return {}; }
  }

  function renderRows(answer, metricNames) {
    const table = clear($("rows"));
    table.append(h("caption", {}, answer.rows.length + " rows"));
    table.append(h("tr", {}, ...answer.columns.map((c) => h("th", { scope: "col" }, escapedCell(c)))));
    for (const row of answer.rows) {
      table.append(h("tr", {}, ...row.map((cell, i) =>
        h("td", { class: metricNames.has(answer.columns[i].split(".")[0]) ? "num" : null }, escapedCell(cell)))));
    }
  }

  function renderProvenance(p) {
    const list = clear($("provenance"));
    const entry = (k, v) => [h("dt", {}, escaped(k)), h("dd", {}, escaped(v))];
    list.append(...entry("definitions", p.definition_version + " (digest " + p.definition_digest + ")"));
    for (const m of p.metric_digests) list.append(...entry("metric " + m.metric, m.digest));
    list.append(...entry("time zone", p.time_zone));
    if (p.range_asked) list.append(...entry("range asked", p.range_asked));
    for (const r of p.ranges || []) list.append(...entry("range read", r));
    for (const e of p.executed_as) list.append(...entry("executed as", e.source + " · " + e.posture));
  }

  // A line per series (each combination of the grouped dimensions), by period, for the
  // first metric; values are parsed for drawing only: the table holds the exact text.
  function renderChart(answer, question) {
    const box = clear($("chart"));
    const metric = (question.metrics || [])[0];
    const valueAt = answer.columns.indexOf(metric);
    if (answer.columns[0] !== "period" || valueAt < 0 || !answer.rows.length) {
      box.hidden = true;
      return;
    }
    box.hidden = false;
    const groupAt = answer.columns.map((c, i) => i).filter((i) => i > 0 && i < valueAt &&
      (question.dimensions || []).includes(answer.columns[i]));
    const periods = [...new Set(answer.rows.map((r) => r[0]))].sort();
    const series = new Map();
    for (const row of answer.rows) {
      const key = groupAt.map((i) => cellString(row[i])).join(" · ") || metric;
      if (!series.has(key)) series.set(key, new Map());
      const value = row[valueAt] === null ? NaN : Number(row[valueAt]);
      series.get(key).set(row[0], value);
    }
    const values = [...series.values()].flatMap((m) => [...m.values()]).filter(Number.isFinite);
    const least = Math.min(...values), most = Math.max(...values);
    const pad = (most - least) * 0.1 || Math.abs(most) * 0.1 || 1;
    const low = least - pad;
    const high = most + pad;
    const W = 760, H = 260, L = 86, R = 50, T = 10, B = 46;
    const bars = periods.length === 1;  // one period: a bar per series, not a one-dot line
    const bottom = bars ? Math.min(0, least) : low;
    const top = bars ? Math.max(0, most) + pad : high;
    const x = (i) => L + (periods.length === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (periods.length - 1));
    const y = (v) => T + (H - T - B) * (1 - (v - bottom) / (top - bottom));
    const chart = svg("svg", { viewBox: "0 0 " + W + " " + H, width: W, height: H });
    chart.append(svg("title", {}, escapeString(metric + " by period")));
    chart.append(svg("line", { x1: L, y1: y(bottom), x2: W - R, y2: y(bottom), stroke: "#888" }));
    chart.append(svg("line", { x1: L, y1: T, x2: L, y2: H - B, stroke: "#888" }));
    for (const v of [bottom, (bottom + top) / 2, top]) {
      chart.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, String(Math.round(v * 100) / 100)));
    }
    const middle = (T + H - B) / 2;
    chart.append(svg("text", { class: "axis-title", x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, "period"));
    chart.append(svg("text", { class: "axis-title", x: 14, y: middle, "text-anchor": "middle",
      transform: "rotate(-90 14 " + middle + ")" }, escapeString(metric)));
    const colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"];
    const legend = h("div", { class: "legend" });
    if (bars) {
      drawBars(chart, [...series.entries()].slice(0, colors.length), periods[0], colors, { L, W, R, y, bottom, H, B });
    } else {
      const step = Math.max(1, Math.ceil(periods.length / 8));
      periods.forEach((period, i) => {
        if (i % step === 0) chart.append(svg("text", { x: x(i), y: H - 24, "text-anchor": "middle" }, cellString(period)));
      });
    }
    [...series.entries()].slice(0, colors.length).forEach(([key, points], s) => {
      legend.append(h("span", {}, h("span", { class: "swatch s" + s }), key));
      if (bars) return;
      const coords = periods.map((p, i) => [i, points.get(p)]).filter(([, v]) => Number.isFinite(v));
      const line = svg("polyline", {
        points: coords.map(([i, v]) => x(i) + "," + y(v)).join(" "),
        fill: "none", stroke: colors[s], "stroke-width": 2,
      });
      line.append(svg("title", {}, key));
      chart.append(line);
      for (const [i, v] of coords) {
        const dot = svg("circle", { cx: x(i), cy: y(v), r: 3, fill: colors[s] });
        dot.append(svg("title", {}, key + " · " + cellString(periods[i]) + " · " + points.get(periods[i])));
        chart.append(dot);
      }
    });
    if (series.size > colors.length) legend.append(h("span", {}, "(" + (series.size - colors.length) + " more series in the table)"));
    box.setAttribute("aria-label", escapeString(metric + " by period, " + series.size + " series"));
    box.append(chart, legend);
  }

  // One bar per series for an answer of one period, that period written under them.
  function drawBars(chart, series, period, colors, box) {
    const span = (box.W - box.L - box.R) / Math.max(series.length, 1);
    const width = Math.min(60, span * 0.6);
    series.forEach(([key, points], s) => {
      const value = points.get(period);
      if (!Number.isFinite(value)) return;
      const middle = box.L + span * (s + 0.5);
      const top = Math.min(box.y(value), box.y(box.bottom));
      const bar = svg("rect", { x: middle - width / 2, y: top, width,
        height: Math.abs(box.y(box.bottom) - box.y(value)), fill: colors[s] });
      bar.append(svg("title", {}, key + " · " + cellString(period) + " · " + value));
      chart.append(bar);
    });
    chart.append(svg("text", { x: (box.L + box.W - box.R) / 2, y: box.H - 24, "text-anchor": "middle" }, cellString(period)));
  }

  function renderAnswer(view, question) {
    $("answer").hidden = false;
    $("text-half").textContent = view.text; // escaped by the server (docs/text-format.md)
    clear($("structured-half")).append(jsonShown(view.http_body));
    let body = null;
    try { body = JSON.parse(view.http_body); } catch (_err) { body = null; }
    const refusal = $("refusal");
    const answered = body && body.outcome === "answer";
    refusal.hidden = answered;
    $("rows").hidden = !answered;
    $("provenance").hidden = !answered;
    if (answered) {
      const names = new Set(question.metrics || []);
      renderRows(body, names);
      renderChart(body, question);
      renderProvenance(body.provenance);
      $("answer-summary").textContent = "answer · " + body.rows.length + " rows · HTTP " + view.http_status +
        " · MCP " + view.mcp_channel;
    } else {
      // Nothing of an earlier answer stays: not its rows, chart or provenance (digests of
      // metrics this question may not even name).
      clear($("rows"));
      clear($("chart"));
      clear($("provenance"));
      $("chart").hidden = true;
      const reason = body && body.reason ? body.reason : body || { code: view.outcome, status: view.http_status, detail: view.text };
      $("refusal-code").textContent = escapeString(String(reason.code));
      $("refusal-status").textContent = String(reason.status);
      clear($("refusal-detail")).append(escaped(String(reason.detail)));
      $("answer-summary").textContent = escapeString((body && body.outcome === "refusal" ? "refusal" : "not answered") +
        " · " + reason.code + " · HTTP " + view.http_status + " · MCP " + view.mcp_channel);
    }
    document.body.dataset.outcome = view.outcome;
  }

  async function ask() {
    const started = performance.now();
    say("Asking…");
    const reply = await call("POST", "/console/agent/ask_metric", $("question-json").value);
    if (!reply.json || reply.json.text === undefined) {
      say(failureSentence(reply));
      return;
    }
    renderAnswer(reply.json, askedQuestion());
    const shown = performance.now();
    const timing = $("timing");
    timing.dataset.askMs = String(shown - started);
    timing.dataset.sinceLoadMs = String(shown);
    timing.textContent = "shown " + Math.round(shown - started) + " ms after asking";
    say("Answer shown: " + reply.json.outcome + ".");
    $("answer-heading").focus();
  }

  // ---- wiring ---------------------------------------------------------------------------

  function start() {
    $("timing").dataset.readyMs = String(performance.now());
    $("answer-heading").setAttribute("tabindex", "-1");
    $("token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      state.token = $("token").value.trim();
      loadCatalog();
    });
    $("search").addEventListener("input", filterCatalog);
    $("question-form").addEventListener("change", renderQuestion);
    $("question-form").addEventListener("input", renderQuestion);
    $("add-filter").addEventListener("click", () => { addFilter(); });
    $("copy-json").addEventListener("click", copyJson);
    $("compile").addEventListener("click", compile);
    $("ask").addEventListener("click", ask);
    $("question-json").addEventListener("input", syncForm);
    $("catalog-agent").addEventListener("toggle", () => { if ($("catalog-agent").open) loadCatalogText(); });
    loadCatalog();
  }

  document.addEventListener("DOMContentLoaded", start);
})();
