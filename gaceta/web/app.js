// gaceta web page: streams a cited answer from POST /ask/stream, or checks a pasted text with POST /attribute (each
// sentence's support, each quote exact / altered / misattributed), and lets a reader check each citation against the
// highlighted PDF page. Every piece of document or answer text is inserted as text (textContent / text nodes), never
// as HTML: the PDFs are untrusted input.
"use strict";

const $ = (id) => document.getElementById(id);

const state = { sources: [], citations: [], citationNumbers: new Map(), segments: [], imageUrl: null };

// ---- how a lawyer reads a place in a document: labels, breadcrumbs, amendment notes, understood references ----

const CRUMB_MAX = 70;
// Lines a consolidated law or an edition prints on every page (or on its cover): never a place in the document.
const RUNNING_HEADER = new RegExp([
  /p[aá]gina\s+\d+(?:\s+de\s+\d+)?/, /\d+(?:\s+de\s+\d+)?/, /[uú]ltima reforma\b.*/, /texto vigente\b.*/,
  /nuev[oa] \S+ publicad[oa]\b.*/, /c[aá]mara de diputados del h\. congreso de la uni[oó]n/,
  /secretar[ií]a general/, /secretar[ií]a de servicios parlamentarios/, /diario oficial\b.*/,
  /(?:lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo),?\s+\d+\s+de\s+\S+\s+de\s+\d{4}/,
].map((r) => "^(?:" + r.source + ")$").join("|"), "i");

// A bare "DECRETO" / "ACUERDO" line opening the operative part says nothing about where a provision sits.
const LONE_PART = /^(?:decreto|acuerdo|resoluci[oó]n)$/i;

function squash(text) {
  return String(text || "").replace(/\s+/g, " ").trim();
}

function shorten(text, n) {
  if (text.length <= n) return text;
  const cut = text.slice(0, n - 1);
  const space = cut.lastIndexOf(" ");
  return (space > n / 2 ? cut.slice(0, space) : cut).replace(/[,;:]+$/, "") + " …";
}

function fold(text) {
  return squash(text).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

// The headings open at a chunk, as plain text: no Markdown marks, no running headers, no repeat of the document's name.
function crumbs(chunk, doc) {
  const names = new Set([doc && doc.title, doc && doc.short_title].filter(Boolean).map(fold));
  const out = [];
  for (const entry of chunk.heading_path || []) {
    const text = squash(String(entry).replace(/^\s*#+\s*/, "")).replace(/\s*[.:\-–—]+$/, "");
    if (!text || RUNNING_HEADER.test(text) || LONE_PART.test(text) || names.has(fold(text))) continue;
    out.push(text);
  }
  return out;
}

function breadcrumb(chunk, doc) {
  const parts = crumbs(chunk, doc);
  if (!parts.length) return null;
  const node = el("div", "crumbs", parts.map((p) => shorten(p, CRUMB_MAX)).join(" › "));
  node.title = parts.join(" › ");
  return node;
}

function pagesText(pages) {
  if (!pages || !pages.length) return "";
  return pages.length === 1 ? "p. " + pages[0] : "pp. " + pages[0] + "-" + pages[pages.length - 1];
}

function citationLabel(citation) {
  if (citation.label) return citation.label;
  return [citation.document_title, pagesText(citation.pages)].filter(Boolean).join(", ");
}

function hitLabel(hit) {
  return hit.label || [hit.document.title, pagesText(hit.chunk.pages)].filter(Boolean).join(", ");
}

function notesList(notes) {
  const list = el("ul", "notes");
  for (const note of notes || []) {
    const text = squash(note.text);
    if (text) list.append(el("li", "note-" + (note.kind || "otro"), text));
  }
  return list.childElementCount ? list : null;
}

// How a reference names each document it resolved to: the short title a source of it (or of a document of the same
// title: another version of the law) carries; two versions of one law are one name ("Ley de Amparo"), said once.
function documentNames(resolved) {
  const names = resolved.doc_ids.map((id, i) => {
    const title = resolved.titles[i];
    const hit = state.sources.find((h) => h.document.doc_id === id)
      || state.sources.find((h) => title && h.document.title === title && h.document.short_title);
    return shorten(squash((hit && hit.document.short_title) || title || id), 90);
  });
  return names.filter((name, i) => names.indexOf(name) === i).slice(0, 2);
}

function referenceText(resolved) {
  const ref = resolved.reference;
  const parts = [];
  const articles = ref.articles || [];
  // "art. 27", "arts. 14, 16"; a provision by the noun the question gives it: "punto 5", "sección 110-26"
  if (articles.length) parts.push((ref.noun || (articles.length > 1 ? "arts." : "art.")) + " " + articles.join(", "));
  if (ref.apartado) parts.push("apartado " + ref.apartado);
  if (ref.fraccion) parts.push("fr. " + ref.fraccion);
  if (ref.inciso) parts.push("inc. " + ref.inciso + ")");
  if (ref.paragraph) parts.push("párr. " + ref.paragraph);
  else if (ref.paragraph_from_end) {  // "el último párrafo": counted from the article's end
    parts.push(["último", "penúltimo", "antepenúltimo"][Math.min(ref.paragraph_from_end, 3) - 1] + " párr.");
  }
  const what = parts.join(", ");
  let where;
  if (resolved.possible && resolved.possible.length) {  // named by a number no indexed text of its kind prints
    where = "«" + squash(ref.law || ref.text) + "», quizá " + resolved.possible.join("; ")
      + " (no imprime su nombre ni su número)";
  } else if (resolved.resolved && resolved.doc_ids.length) {
    where = documentNames(resolved).join("; ");
  } else {
    where = "«" + squash(ref.law || ref.text) + "» (no está en el índice)";
  }
  return what ? what + " de " + where : where;
}

// "Entendido: art. 27 de Constitución Política …": what the question was read to name, and where it was found; and
// the one country it names ("los mexicanos": the law of México, the other countries' documents set aside).
function renderReferences(references, country) {
  const box = $("understood");
  const refs = references || [];
  const withArticles = refs.filter((r) => r.reference.articles && r.reference.articles.length);
  const shown = [];
  for (const r of refs) {
    // "el artículo 27 … de la Constitución" parses as two references; the law alone adds nothing to the first.
    const lawOnly = !(r.reference.articles && r.reference.articles.length);
    if (lawOnly && r.resolved && withArticles.some((a) => r.doc_ids.every((id) => a.doc_ids.includes(id)))) continue;
    const text = referenceText(r);
    if (!shown.includes(text)) shown.push(text);
  }
  if (country) {
    const aside = country.set_aside === 1 ? "1 documento de otro país"
      : country.set_aside + " documentos de otros países";
    shown.push("«" + country.words.join(", ") + "»: derecho de " + country.name + " (" + aside
      + " fuera de la búsqueda)");
  }
  box.replaceChildren();
  box.hidden = shown.length === 0;
  if (!shown.length) return;
  box.append(el("span", "understood-lead", "Entendido: "), document.createTextNode(shown.join("; ")));
}

// Document text as a reader sees it: the Markdown heading marks ("###### Artículo 27.") and emphasis marks out.
function plain(text) {
  return String(text || "").replace(/^[ \t]{0,3}#{1,6}[ \t]+/gm, "").replace(/\*\*|__/g, "").replace(/\n{3,}/g, "\n\n");
}

// The page view a citation or a source opens: a real address (a new tab, a brief) of the highlighted PDF page.
function pageHref(docId, page, start, end) {
  const span = start !== undefined && start !== null && end > start ? "?highlight=" + start + "-" + end : "";
  return "/documents/" + encodeURIComponent(docId) + "/pages/" + page + span;
}

function citationHref(citation) {
  const page = (citation.pages && citation.pages[0]) || 1;
  return pageHref(citation.doc_id, page, citation.start, citation.end);
}

function hitHref(hit) {
  return pageHref(hit.document.doc_id, hit.chunk.pages[0] || hit.document.pdf_pages[0], hit.chunk.start, hit.chunk.end);
}

// A link that opens the side panel on a plain click, and the page view itself in a new tab (ctrl/cmd/shift/middle
// click, "open in new tab", or when copied).
function link(className, text, href, onOpen) {
  const a = el("a", className, text);
  a.href = href;
  a.addEventListener("click", (e) => {
    if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    onOpen();
  });
  return a;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function authHeaders() {
  const key = $("api-key").value.trim();
  return key ? { Authorization: "Bearer " + key } : {};
}

function setStatus(text, isError) {
  $("status").textContent = text;
  $("status").classList.toggle("error", Boolean(isError));
}

async function errorMessage(response) {
  if (response.status === 401) {
    $("key-box").open = true;
    return "El servidor pide una clave de API (campo «Clave de API»).";
  }
  try {
    const body = await response.json();
    return body.message || (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail));
  } catch (_) {
    return "Error " + response.status;
  }
}

// ---- Server-Sent Events over fetch (EventSource cannot POST) ----

async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { name, data: JSON.parse(data.join("\n")) };
    }
  }
}

// ---- rendering the answer ----

function segment(i) {
  while (state.segments.length <= i) {
    const wrap = el("span", "segment");
    const text = el("span", "segment-text");
    const cites = el("span", "segment-cites");
    wrap.append(text, cites);
    $("answer").append(wrap);
    state.segments.push({ wrap, text, cites });
  }
  return state.segments[i];
}

function sourceFor(citation) {
  if (citation.source_index !== null && citation.source_index !== undefined && state.sources[citation.source_index]) {
    return state.sources[citation.source_index];
  }
  return state.sources.find((hit) => hit.chunk.chunk_id === citation.chunk_id) || null;
}

function addCitation(segIndex, citation) {
  const key = [citation.chunk_id, citation.start, citation.end].join("|");
  let n = state.citationNumbers.get(key);
  if (n === undefined) {
    state.citations.push(citation);
    n = state.citations.length;
    state.citationNumbers.set(key, n);
  }
  const marker = link("cite" + (citation.verified ? "" : " unverified"), n, citationHref(citation),
    () => openPanel(citation));
  marker.dataset.n = String(n);
  if (!citation.verified) marker.title = "Cita no verificada contra la fuente";
  marker.addEventListener("mouseenter", () => showTooltip(marker, citation));
  marker.addEventListener("focus", () => showTooltip(marker, citation));
  marker.addEventListener("mouseleave", hideTooltip);
  marker.addEventListener("blur", hideTooltip);
  segment(segIndex).cites.append(marker);
  if (!$("citation-" + n)) renderCitation(n, citation);
}

// The numbered list under the answer: each citation as a lawyer cites it, where it sits, the quote, its amendment
// notes.
function renderCitation(n, citation) {
  const item = el("li");
  item.id = "citation-" + n;
  const label = link("cite-label", citationLabel(citation), citationHref(citation), () => openPanel(citation));
  item.append(label);
  if (!citation.verified) item.append(" ", el("span", "badge unverified", "no verificada"));
  const source = sourceFor(citation);
  const path = source && breadcrumb(source.chunk, source.document);
  if (path) item.append(path);
  // the quote only where it adds to the answer: an extractive answer's sentence is its own quote
  if (!citation.verified || !fold($("answer").textContent).includes(fold(citation.cited_text))) {
    item.append(el("blockquote", "cite-quote", plain(citation.cited_text)));
  }
  const notes = notesList(citation.notes);
  if (notes) item.append(notes);
  $("citations").append(item);
  $("citations-box").hidden = false;
}

// The sources, one entry per provision: hits of the same document under the same headings (the same article) are
// one entry; each distinct citation label in it is a link to its highlighted page, none repeated.
function renderSources(hits) {
  state.sources = hits;
  const list = $("sources");
  list.replaceChildren();
  const groups = new Map();
  for (const hit of hits) {
    const key = hit.document.doc_id + "|" + crumbs(hit.chunk, hit.document).join(" › ");
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(hit);
  }
  for (const group of groups.values()) {
    const item = el("li");
    const labels = new Set();
    const first = group[0];
    for (const hit of group) {
      const label = hitLabel(hit);
      if (labels.has(label)) continue;
      labels.add(label);
      if (labels.size > 1) item.append(el("span", "source-sep", " · "));
      item.append(link(labels.size === 1 ? "source-title" : "source-title more", label, hitHref(hit),
        () => openPanel(null, hit)));
    }
    const path = breadcrumb(first.chunk, first.document);
    if (path) item.append(path);
    const named = [...labels].every((l) => fold(l).startsWith(fold(first.document.label)));
    const pages = [...new Set(group.flatMap((h) => h.chunk.pages))].sort((a, b) => a - b);
    const meta = [named ? null : first.document.label, versionDate(first.document),
      (pages.length > 1 ? "págs. " : "pág. ") + pages.join(", ")].filter(Boolean).join(" · ");
    item.append(el("div", "source-meta", meta));
    list.append(item);
  }
  $("sources-box").hidden = hits.length === 0;
}

// "Cobertura de citas: 80 % (4 de 5 frases) · respaldadas por su cita: 3 de 5 · fuentes pertinentes: no — señalada:
// …": the support and relevance judgements, when the server sends them.
const FLAG_REASONS = {
  uncited: "menos de la mitad de las frases cita una fuente verificada",
  unsupported: "menos de la mitad de las frases está respaldada por lo que cita",
  not_relevant: "las fuentes citadas no tratan la pregunta",
};

function coverageText(coverage) {
  const parts = ["Cobertura de citas: " + Math.round(coverage.ratio * 100) + " % (" + coverage.cited + " de " +
    coverage.sentences + " frases)"];
  if (typeof coverage.supported === "number") {
    parts.push("respaldadas por su cita: " + coverage.supported + " de " + coverage.sentences);
  }
  if (typeof coverage.relevant === "boolean") {
    parts.push("fuentes pertinentes a la pregunta: " + (coverage.relevant ? "sí" : "no"));
  }
  let text = parts.join(" · ");
  const reasons = (coverage.flag_reasons || []).map((r) => FLAG_REASONS[r] || squash(r)).filter(Boolean);
  if (coverage.flagged) {
    text += " — " + (reasons.length ? "señalada: " + reasons.join("; ") + ". " : "") +
      "Las frases sin cita verificada o sin respaldo están marcadas.";
  }
  return text;
}

// Sentences marked in place: uncited ones when the answer is flagged; cited ones their citation does not back (or
// backs only in part) always.
function markUncited(coverage) {
  const box = $("coverage");
  box.hidden = false;
  box.textContent = coverageText(coverage);
  box.classList.toggle("flagged", coverage.flagged);
  const wanted = [];
  if (coverage.flagged) {
    for (const sentence of coverage.uncited || []) wanted.push([sentence, "uncited", "Frase sin cita verificada"]);
  }
  for (const sentence of coverage.unsupported || []) {
    wanted.push([sentence, "unbacked", "Su cita no respalda esta frase"]);
  }
  for (const sentence of coverage.partial || []) {
    wanted.push([sentence, "half-backed", "Su cita respalda esta frase solo en parte"]);
  }
  if (!wanted.length) return;
  for (const seg of state.segments) {
    const full = seg.text.textContent;
    const ranges = [];
    for (const [sentence, cls, title] of wanted) {
      const at = full.indexOf(sentence);
      const end = at + sentence.length;
      if (at >= 0 && !ranges.some(([a, b]) => at < b && a < end)) ranges.push([at, end, cls, title]);
    }
    if (!ranges.length) continue;
    ranges.sort((x, y) => x[0] - y[0]);
    const parts = [];
    let pos = 0;
    for (const [a, b, cls, title] of ranges) {
      const mark = el("mark", cls, full.slice(a, b));
      mark.title = title;
      parts.push(document.createTextNode(full.slice(pos, a)), mark);
      pos = b;
    }
    parts.push(document.createTextNode(full.slice(pos)));
    seg.text.replaceChildren(...parts);
  }
}

// ---- tooltip and side panel ----

function showTooltip(marker, citation) {
  const source = sourceFor(citation);
  $("tooltip-quote").textContent = plain(citation.cited_text);
  $("tooltip-notes").replaceChildren(...(citation.notes || []).map((note) => el("li", null, squash(note.text))));
  $("tooltip-notes").hidden = !(citation.notes && citation.notes.length);
  const label = citationLabel(citation);
  const doc = source && source.document.label;
  $("tooltip-doc").textContent = doc && !fold(label).includes(fold(doc)) ? label + " — " + doc : label;
  const tip = $("tooltip");
  tip.hidden = false;
  const box = marker.getBoundingClientRect();
  tip.style.left = Math.max(8, Math.min(window.scrollX + box.left - 20, window.scrollX + window.innerWidth - tip.offsetWidth - 8)) + "px";
  tip.style.top = (window.scrollY + box.bottom + 6) + "px";
}

function hideTooltip() {
  $("tooltip").hidden = true;
}

// Which text a source is: a consolidated law by its last reform as its pages print it ("Última reforma DOF
// 15-10-2025", the BOE's "Última modificación"), anything else by its publication; days as lawyers write them.
function day(iso) {
  return iso ? iso.split("-").reverse().join("-") : "";
}

function versionDate(doc) {
  if (doc.last_reform_date) {
    const words = doc.gazette === "BOE" ? "Última modificación " :
      (doc.law_id || "").startsWith("mx/") || doc.gazette === "DOF" ? "Última reforma DOF " : "Última reforma ";
    return words + day(doc.last_reform_date);
  }
  return doc.publication_date ? "Publicación " + day(doc.publication_date) : null;
}

function metaRow(list, label, value) {
  if (value === null || value === undefined || value === "") return;
  list.append(el("dt", null, label), el("dd", null, value));
}

async function openPanel(citation, hit) {
  hideTooltip();
  if (!hit) hit = sourceFor(citation) || await fetchChunk(citation.chunk_id);
  if (!hit) return;
  const doc = hit.document;
  const chunk = hit.chunk;
  $("panel-title").textContent = doc.title;
  const meta = $("panel-meta");
  meta.replaceChildren();
  metaRow(meta, "Emisor", doc.issuing_body);
  metaRow(meta, "Publicación", day(doc.publication_date));
  if (doc.last_reform_date) metaRow(meta, "Versión", versionDate(doc));
  metaRow(meta, "Tipo", doc.doc_type);
  const edition = [doc.label, doc.section].filter(Boolean).join(" · ");
  if (!fold(doc.title).includes(fold(doc.label))) metaRow(meta, "Edición", edition);  // a law's label is its name
  metaRow(meta, "Cita", citation ? citationLabel(citation) : hitLabel(hit));
  metaRow(meta, "Páginas", (citation ? citation.pages : chunk.pages).join(", "));
  if (citation) metaRow(meta, "Verificación", citation.verified ? "cita verificada en el texto oficial" : "cita NO verificada");
  const where = crumbs(chunk, doc);
  $("panel-crumbs").textContent = where.join(" › ");
  $("panel-crumbs").hidden = where.length === 0;

  const context = $("panel-context");
  if (citation && citation.start >= chunk.start && citation.end <= chunk.end) {
    const a = citation.start - chunk.start;
    const b = citation.end - chunk.start;
    context.replaceChildren(document.createTextNode(plain(clip(chunk.text.slice(0, a), -400))),
      el("mark", "quote", plain(chunk.text.slice(a, b))), document.createTextNode(plain(clip(chunk.text.slice(b), 400))));
  } else {
    context.replaceChildren(document.createTextNode(plain(citation ? citation.cited_text : chunk.text)));
  }
  const notes = notesList(citation ? citation.notes : chunk.notes);
  $("panel-notes").replaceChildren(...(notes ? notes.childNodes : []));
  $("panel-notes").hidden = !notes;

  $("panel").hidden = false;
  const page = citation ? citation.pages[0] : chunk.pages[0];
  const href = citation ? citationHref(citation) : hitHref(hit);
  $("panel-open").href = href;
  const [path, query] = href.split("?");
  await showPage(path + ".png" + (query ? "?" + query : ""), page);
}

function clip(text, n) {
  if (n < 0) return text.length > -n ? "…" + text.slice(text.length + n) : text;
  return text.length > n ? text.slice(0, n) + "…" : text;
}

async function fetchChunk(chunkId) {
  const response = await fetch("/chunks/" + encodeURIComponent(chunkId), { headers: authHeaders() });
  if (!response.ok) {
    setStatus(await errorMessage(response), true);
    return null;
  }
  return response.json();
}

async function showPage(url, page) {
  const img = $("panel-image");
  const label = $("panel-image-status");
  $("panel-page-label").textContent = "Página " + page + " del PDF";
  img.removeAttribute("src");
  img.classList.remove("loaded");
  label.textContent = "Cargando la página…";
  // Fetched (not <img src>) so the API key travels in the header; shown through a blob: URL.
  const response = await fetch(url, { headers: authHeaders() });
  if (!response.ok) {
    label.textContent = await errorMessage(response);
    return;
  }
  if (state.imageUrl) URL.revokeObjectURL(state.imageUrl);
  state.imageUrl = URL.createObjectURL(await response.blob());
  const words = Number(response.headers.get("X-Highlighted-Words") || 0);
  const box = (response.headers.get("X-Highlight-Box") || "").split(",").map(Number);
  label.textContent = words ? words + " palabras resaltadas" : "El fragmento no se pudo ubicar en la imagen de la página.";
  img.onload = () => {
    img.classList.add("loaded");
    if (box.length === 4) {  // bring the highlighted lines into view inside the panel
      const panel = $("panel");
      panel.scrollTop = img.offsetTop + box[1] * img.clientHeight - panel.clientHeight / 3;
    }
  };
  img.src = state.imageUrl;
}

// ---- asking ----

function reset() {
  state.sources = [];
  state.citations = [];
  state.citationNumbers = new Map();
  state.segments = [];
  $("answer").replaceChildren();
  $("understood").replaceChildren();
  $("understood").hidden = true;
  $("citations").replaceChildren();
  $("citations-box").hidden = true;
  $("sources").replaceChildren();
  $("sources-box").hidden = true;
  $("coverage").hidden = true;
  $("check-summary").replaceChildren();
  $("check-summary").hidden = true;
  $("quotes").replaceChildren();
  $("quotes-box").hidden = true;
  $("panel").hidden = true;
  $("permalink").hidden = true;
  hideTooltip();
}

// The question goes in the page's address (?q=…) so an answer can be linked; replaceState: no history entry per ask.
function linkQuestion(question) {
  const url = new URL(window.location.href);
  url.searchParams.set("q", question);
  window.history.replaceState(null, "", url.pathname + url.search + url.hash);
}

async function ask(event) {
  if (event) event.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  reset();
  linkQuestion(question);
  $("ask").disabled = true;
  setStatus("Buscando y redactando…");
  try {
    const response = await fetch("/ask/stream", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json", Accept: "text/event-stream" }, authHeaders()),
      body: JSON.stringify({ question }),
    });
    if (!response.ok) {
      setStatus(await errorMessage(response), true);
      return;
    }
    for await (const { name, data } of readEvents(response)) {
      if (name === "sources") {
        renderSources(data.sources);
        renderReferences(data.references, data.country);
      }
      else if (name === "text") segment(data.segment).text.append(document.createTextNode(data.text));
      else if (name === "citation") addCitation(data.segment, data.citation);
      else if (name === "coverage") markUncited(data.coverage);
      else if (name === "error") setStatus(data.message, true);
      else if (name === "done") {
        finished(data.answer);
      }
    }
  } catch (err) {
    setStatus("Se perdió la conexión con el servidor: " + err.message, true);
  } finally {
    $("ask").disabled = false;
  }
}

// What kind of answer it is, in a lawyer's words, and a permanent link to it (the page with ?q=).
const BACKEND_TEXT = {
  extractive: "Respuesta extractiva: frases tomadas tal cual de las fuentes",
  claude: "Respuesta redactada por Claude, con cada cita verificada en el texto oficial",
  tags: "Respuesta redactada por un modelo, con cada cita verificada en el texto oficial",
  tools: "Respuesta redactada por un modelo, con cada cita verificada en el texto oficial",
};

function finished(answer) {
  if ((answer.references && answer.references.length) || answer.country) {
    renderReferences(answer.references, answer.country);
  }
  let text = BACKEND_TEXT[answer.backend] || "Respuesta";
  if (!answer.found) text += ". No se encontró nada pertinente en el índice";
  if (answer.fallback_reason) text += " (" + answer.fallback_reason + ")";
  setStatus(text + ".");
  const permalink = $("permalink");
  permalink.href = "/?q=" + encodeURIComponent($("question").value.trim());
  permalink.hidden = false;
}

// A whole answer at once (POST /ask's shape, or the stream's `done`): what a linked question shows. One plain request
// the browser waits for (a headless browser with a virtual-time budget, a link preview), not a stream it may cut.
function renderAnswer(answer) {
  renderSources(answer.sources || []);
  renderReferences(answer.references, answer.country);
  answer.content.forEach((seg, i) => {
    segment(i).text.append(document.createTextNode(seg.text));
    for (const c of seg.citations) addCitation(i, c);
  });
  markUncited(answer.coverage);
  finished(answer);
}

async function askOnce(question) {
  reset();
  $("ask").disabled = true;
  setStatus("Buscando y redactando…");
  try {
    const response = await fetch("/ask", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
      body: JSON.stringify({ question }),
    });
    if (!response.ok) {
      setStatus(await errorMessage(response), true);
      return;
    }
    renderAnswer(await response.json());
  } catch (err) {
    setStatus("Se perdió la conexión con el servidor: " + err.message, true);
  } finally {
    $("ask").disabled = false;
  }
}

// ---- checking a text (POST /attribute): each sentence's support, each quote's verdict ----

const SUPPORT_TEXT = {
  supported: "Respaldada por las fuentes",
  partial: "Respaldada en parte",
  unsupported: "Sin respaldo en las fuentes",
};
const QUOTE_TEXT = {
  exact: "exacta",
  altered: "alterada",
  misattributed: "mal atribuida",
  not_found: "no encontrada",
};
const QUOTE_HELP = {
  exact: "La cita coincide con el texto oficial, donde el texto dice que está.",
  altered: "La cita se parece al texto oficial pero no es idéntica: abajo, la redacción oficial y los cambios.",
  misattributed: "El texto citado existe, pero no en el artículo o la ley que el texto le atribuye.",
  not_found: "No se encontró nada parecido en los documentos consultados.",
};

// The official wording with the quote's changes: words the quote changed or left out are inserted (<ins>), words
// the quote has and the official text does not are struck (<del>).
function diffNodes(diff) {
  const nodes = [];
  for (const step of diff) {
    if (nodes.length) nodes.push(document.createTextNode(" "));
    if (step.op === "equal") nodes.push(document.createTextNode(step.official));
    else {
      if (step.quoted) {
        const del = el("del", null, step.quoted);
        del.title = "En la cita";
        nodes.push(del);
      }
      if (step.quoted && step.official) nodes.push(document.createTextNode(" "));
      if (step.official) {
        const ins = el("ins", null, step.official);
        ins.title = "En el texto oficial";
        nodes.push(ins);
      }
    }
  }
  return nodes;
}

function renderQuote(n, quote) {
  const item = el("li", "quote-item q-" + quote.status);
  item.id = "quote-" + n;
  const head = el("div", "quote-head");
  const badge = el("span", "badge q-" + quote.status, "cita " + QUOTE_TEXT[quote.status]);
  badge.title = QUOTE_HELP[quote.status];
  head.append(badge);
  if (quote.claimed) head.append(" ", el("span", "quote-claimed", "dice citar: " + squash(quote.claimed.text)));
  item.append(head, el("blockquote", "quote-text", "«" + squash(quote.text) + "»"));
  const citation = (quote.citations || [])[0];
  if (citation) {
    const where = el("div", "quote-where", quote.status === "misattributed" ? "Está en: " : "Texto oficial: ");
    const link = el("button", "cite-label", citationLabel(citation));
    link.type = "button";
    link.title = "Ver la página del PDF";
    link.addEventListener("click", () => openPanel(citation));
    where.append(link);
    item.append(where);
  }
  if (quote.official && !quote.verbatim) {
    const official = el("blockquote", "quote-official");
    official.append(...diffNodes(quote.diff && quote.diff.length ? quote.diff : [{ op: "equal", official: quote.official }]));
    item.append(el("div", "quote-label", "Redacción oficial (cambios marcados):"), official);
  } else if (quote.official && quote.status === "misattributed") {
    item.append(el("blockquote", "quote-official", quote.official));
  }
  if (quote.reason) item.title = quote.reason;
  $("quotes").append(item);
  $("quotes-box").hidden = false;
}

// Each quote marked inside its sentence; clicking it scrolls to its verdict.
function markQuotes(seg, sentence, quotes) {
  const full = seg.text.textContent;
  const parts = [];
  let pos = 0;
  for (const n of sentence.quotes) {
    const quote = quotes[n];
    const a = quote.start - sentence.start;
    const b = quote.end - sentence.start;
    if (a < pos || b > full.length) continue;
    const mark = el("mark", "quote-mark q-" + quote.status, full.slice(a, b));
    mark.title = "Cita " + QUOTE_TEXT[quote.status] + ": " + QUOTE_HELP[quote.status];
    mark.tabIndex = 0;
    const go = () => $("quote-" + n).scrollIntoView({ behavior: "smooth", block: "center" });
    mark.addEventListener("click", go);
    mark.addEventListener("keydown", (e) => { if (e.key === "Enter") go(); });
    parts.push(document.createTextNode(full.slice(pos, a)), mark);
    pos = b;
  }
  if (!parts.length) return;
  parts.push(document.createTextNode(full.slice(pos)));
  seg.text.replaceChildren(...parts);
}

function renderAttribution(result) {
  renderSources(result.sources);
  renderReferences(result.references);
  result.content.forEach((seg, i) => {
    segment(i).text.append(document.createTextNode(seg.text));
    for (const c of seg.citations) addCitation(i, c);
  });
  for (const sentence of result.sentences) {
    const seg = state.segments[sentence.segment];
    if (!seg) continue;
    if (sentence.support) {
      seg.wrap.classList.add("support", "support-" + sentence.support);
      seg.wrap.dataset.support = sentence.support;
      seg.wrap.title = SUPPORT_TEXT[sentence.support] +
        (sentence.missing && sentence.missing.length ? " (ninguna fuente dice: " + sentence.missing.join(", ") + ")" : "");
    }
    if (sentence.quotes.length) markQuotes(seg, sentence, result.quotes);
  }
  result.quotes.forEach((quote, n) => renderQuote(n, quote));
  const s = result.summary;
  const box = $("check-summary");
  box.replaceChildren();
  box.append(el("span", "support-supported", s.supported + " respaldadas"), " · ",
    el("span", "support-partial", s.partial + " en parte"), " · ",
    el("span", "support-unsupported", s.unsupported + " sin respaldo"),
    document.createTextNode(" de " + s.sentences + " frases."));
  const counts = Object.entries(s.quotes || {}).filter(([, count]) => count);
  if (counts.length) {
    box.append(document.createTextNode(" Citas textuales: " +
      counts.map(([status, count]) => count + " " + QUOTE_TEXT[status] + (count > 1 ? "s" : "")).join(", ") + "."));
  }
  if (result.question && typeof result.coverage.relevant === "boolean") {
    box.append(document.createTextNode(" Fuentes pertinentes a la pregunta: " + (result.coverage.relevant ? "sí." : "no.")));
  }
  box.hidden = false;
}

async function check(event) {
  if (event) event.preventDefault();
  const text = $("check-text").value;
  if (!text.trim()) return;
  reset();
  $("check").disabled = true;
  setStatus("Revisando el texto contra los documentos…");
  try {
    const body = { text };
    const question = $("check-question").value.trim();
    if (question) body.question = question;
    const response = await fetch("/attribute", {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, authHeaders()),
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      setStatus(await errorMessage(response), true);
      return;
    }
    const result = await response.json();
    renderAttribution(result);
    setStatus(result.found ? "Revisión terminada." : "Revisión terminada: nada en el índice respalda este texto.");
  } catch (err) {
    setStatus("Se perdió la conexión con el servidor: " + err.message, true);
  } finally {
    $("check").disabled = false;
  }
}

function setMode(mode) {
  const checking = mode === "check";
  $("ask-form").hidden = checking;
  $("check-form").hidden = !checking;
  $("mode-ask").setAttribute("aria-pressed", String(!checking));
  $("mode-check").setAttribute("aria-pressed", String(checking));
  reset();
  setStatus("");
}

document.addEventListener("DOMContentLoaded", () => {
  $("mode-ask").addEventListener("click", () => setMode("ask"));
  $("mode-check").addEventListener("click", () => setMode("check"));
  $("check-form").addEventListener("submit", check);
  $("api-key").value = sessionStorage.getItem("gaceta-api-key") || "";
  $("api-key").addEventListener("change", () => sessionStorage.setItem("gaceta-api-key", $("api-key").value.trim()));
  $("ask-form").addEventListener("submit", ask);
  $("panel-close").addEventListener("click", () => { $("panel").hidden = true; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("panel").hidden = true; });
  const linked = new URLSearchParams(window.location.search).get("q");
  if (linked && linked.trim()) {
    $("question").value = linked.trim();
    askOnce(linked.trim());
  }
});
