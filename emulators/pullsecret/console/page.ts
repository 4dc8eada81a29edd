import { CONSOLE_TOKEN_HEADER } from './request-guard';

/**
 * The console's only page: static HTML, CSS and a little script that polls /api/state every
 * second and renders it with textContent (no framework, no build step, nothing from a CDN). It
 * carries this start's token (base64url: nothing to escape) and sends it with every action.
 */
export const consolePage = (token: string): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="console-token" content="${token}">
<title>Pull Secret Adapter · local console</title>
<style>
  :root { font: 14px/1.4 system-ui, sans-serif; color: #1d2530; background: #f4f6f8; }
  body { margin: 0 auto; padding: 16px 24px; max-width: 1280px; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 20px 0 8px; }
  .muted { color: #6a7380; } .bar { display: flex; gap: 8px; flex-wrap: wrap; align-items: center; margin: 8px 0; }
  button { font: inherit; padding: 4px 10px; border: 1px solid #9aa5b1; border-radius: 4px; background: #fff; cursor: pointer; }
  button.primary { background: #0b62d6; color: #fff; border-color: #0b62d6; }
  button.danger { color: #b3261e; border-color: #e0a39e; }
  .card { background: #fff; border: 1px solid #d8dee4; border-radius: 6px; padding: 12px; margin: 8px 0; }
  table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eef1f4; vertical-align: top; }
  th { font-weight: 600; color: #4a5563; font-size: 12px; }
  .badge { display: inline-block; padding: 1px 7px; margin: 1px 2px; border-radius: 10px; font-size: 12px; background: #e6e9ee; }
  .True, .succeeded, .ENABLED { background: #d5f2dd; color: #165b2a; }
  .False, .failed, .DISABLED, .DESTROYED { background: #fbe0de; color: #8c1d18; }
  .Unknown, .running, .pending { background: #fff1c2; color: #6b5200; }
  code { font-size: 12px; } .grid { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
  #error { color: #b3261e; }
  details.trace summary { cursor: pointer; color: #4a5563; margin: 6px 0; }
  .trace td { font-size: 12px; white-space: nowrap; } .trace td.details { white-space: normal; }
  .lane { position: relative; width: 240px; height: 10px; background: #eef1f4; border-radius: 2px; }
  .lane div { position: absolute; top: 0; height: 10px; min-width: 2px; border-radius: 2px; background: #0b62d6; }
  .lane div.ERROR { background: #b3261e; }
</style>
</head>
<body>
<h1>Pull Secret Adapter · local console</h1>
<div class="muted">Live from the local stack's own APIs; secret material never appears here (ids, states, names and labels only). <span id="updated"></span></div>
<div class="bar">
  <button class="primary" data-testid="create-cluster" onclick="act('POST','/api/clusters')">Create demo cluster</button>
  <span class="muted">Inject a fault:</span><span id="presets" class="bar"></span>
  <button onclick="act('DELETE','/api/faults')">Clear faults</button>
</div>
<div id="error" data-testid="error"></div>
<h2>Fleet <span class="muted">(npm run -s fleet -- report)</span></h2><div class="card" id="fleet" data-testid="fleet"></div>
<h2>Clusters</h2><div id="clusters" data-testid="clusters"></div>
<h2>Executions (Cloud Run Jobs)</h2><div class="card"><table id="executions" data-testid="executions"></table></div>
<h2>Kubernetes Secrets per management cluster</h2><div id="mgmt" data-testid="management-clusters"></div>
<div class="grid">
  <div><h2>Injected faults</h2><div class="card"><table id="faults" data-testid="faults"></table></div></div>
  <div><h2>Dead letters</h2><div class="card"><table id="dead" data-testid="dead-letters"></table></div></div>
</div>
<script>
const NOT_HOLDABLE = ['pullsecret', 'hypershift'];
const TOKEN = document.querySelector('meta[name=console-token]').content;
const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (typeof v === 'function') node[k] = v; else node.setAttribute(k, v);
  }
  for (const c of children.flat(Infinity)) node.append(c instanceof Node ? c : document.createTextNode(c == null ? '' : String(c)));
  return node;
}
const badge = (text, cls) => el('span', { class: 'badge ' + (cls || '') }, text);
const row = (cells, head) => el('tr', {}, cells.map((c) => el(head ? 'th' : 'td', {}, c)));
const short = (id) => id ? id.slice(0, 8) : '';
// Traces: loaded only for the clusters whose trace section is open, refreshed with the state.
const openTraces = new Set();
const traces = {};
let lastState;
async function loadTrace(id) {
  const response = await fetch('/api/clusters/' + encodeURIComponent(id) + '/trace');
  traces[id] = await response.json();
}
function traceTable(t) {
  if (!t) return el('div', { class: 'muted' }, 'Loading…');
  if (t.error) return el('div', { class: 'muted' }, t.error);
  if (!t.spans.length) return el('div', { class: 'muted' }, 'No trace yet: spans arrive as each component flushes them.');
  const total = Math.max(...t.spans.map((s) => s.startOffsetMs + s.durationMs));
  return el('div', {},
    el('div', { class: 'muted' }, 'Trace ', el('code', { 'data-testid': 'trace-id' }, t.traceId), ' · ' + t.spans.length + ' spans · ' + total.toFixed(1) + ' ms · npm run -s trace -- ' + t.clusterId),
    el('table', { class: 'trace' }, row(['span', 'service', 'start ms', 'duration ms', '', 'status', 'details'], true),
      t.spans.map((s) => el('tr', { 'data-testid': 'trace-span', 'data-name': s.name, 'data-service': s.service },
        el('td', { style: 'padding-left:' + (8 + 14 * s.depth) + 'px' }, s.name),
        el('td', {}, s.service), el('td', {}, s.startOffsetMs.toFixed(1)), el('td', {}, s.durationMs.toFixed(1)),
        el('td', {}, el('div', { class: 'lane' }, el('div', { class: s.status, style: 'left:' + (100 * s.from).toFixed(2) + '%;width:' + (100 * (s.to - s.from)).toFixed(2) + '%' }))),
        el('td', {}, s.status === 'UNSET' ? '' : badge(s.status, s.status === 'OK' ? 'True' : 'False')),
        el('td', { class: 'details' }, Object.entries(s.details).map(([k, v]) => k + '=' + v).join(' '))))));
}
function traceSection(c) {
  const section = el('details', { class: 'trace', 'data-testid': 'trace', 'data-cluster-id': c.id },
    el('summary', {}, 'Trace of the latest reconcile'), traceTable(traces[c.id]));
  section.open = openTraces.has(c.id);
  section.ontoggle = () => {
    if (!section.open) { openTraces.delete(c.id); return; }
    if (openTraces.has(c.id)) return;
    openTraces.add(c.id);
    loadTrace(c.id).then(() => lastState && render(lastState));
  };
  return section;
}
async function act(method, path) {
  $('error').textContent = '';
  const response = await fetch(path, { method, headers: { '${CONSOLE_TOKEN_HEADER}': TOKEN } });
  if (!response.ok) $('error').textContent = method + ' ' + path + ': ' + ((await response.json()).error || response.status);
  refresh();
}
function clusterCard(c, executions) {
  const own = c.adapters.find((a) => a.adapter === 'pullsecret');
  // Only the HyperFleet emulator's own simulations can be held; ours and the HyperShift simulator
  // (a separate process that reports what it finds) cannot.
  const simulated = c.adapters.filter((a) => !NOT_HOLDABLE.includes(a.adapter)).map((a) => a.adapter);
  return el('div', { class: 'card', 'data-testid': 'cluster', 'data-cluster-id': c.id, 'data-cluster-name': c.name },
    el('div', { class: 'bar' },
      el('strong', {}, c.name), el('code', { class: 'muted' }, c.id), badge('generation ' + c.generation),
      c.deleting ? badge('deleting', 'Unknown') : '',
      c.conditions.map((k) => el('span', { 'data-testid': 'condition', 'data-type': k.type, 'data-status': k.status, 'data-generation': String(k.observedGeneration) },
        badge(k.type + '=' + k.status + ' @' + (k.observedGeneration ?? '?'), k.status)))),
    el('table', {}, row(['adapter', 'generation', 'conditions', 'data'], true),
      c.adapters.map((a) => row([a.adapter, String(a.observedGeneration ?? ''),
        el('span', {}, a.conditions.map((k) => badge(k.type + '=' + k.status + (k.reason ? ' (' + k.reason + ')' : ''), k.status))),
        el('code', {}, Object.entries(a.data).map(([k, v]) => k + '=' + v).join(' '))]))),
    el('div', { class: 'bar' }, el('span', { class: 'muted' }, 'Secret Manager versions:'),
      c.secretVersions.length ? c.secretVersions.map((v) => el('span', { 'data-testid': 'secret-version' }, badge('v' + v.id + ' ' + v.state, v.state))) : el('span', { class: 'muted' }, 'none')),
    el('div', { class: 'bar' }, el('span', { class: 'muted' }, 'Executions:'),
      executions.filter((e) => e.clusterId === c.id).map((e) => badge(e.id + ' ' + e.operation + ' ' + e.state, e.state))),
    el('div', { class: 'bar' },
      el('button', { 'data-testid': 'change-pull-secret', onclick: () => act('POST', '/api/clusters/' + c.id + '/pull-secret') }, 'Change pull secret'),
      simulated.map((a) => [
        el('button', { 'data-testid': 'hold-' + a, onclick: () => act('POST', '/api/clusters/' + c.id + '/adapters/' + a + '/hold') }, 'Hold ' + a),
        el('button', { 'data-testid': 'release-' + a, onclick: () => act('POST', '/api/clusters/' + c.id + '/adapters/' + a + '/release') }, 'Release ' + a)]),
      el('button', { class: 'danger', 'data-testid': 'delete-cluster', onclick: () => act('DELETE', '/api/clusters/' + c.id) }, 'Delete')),
    traceSection(c));
}
// The fleet report's summary (the same code as \`fleet report\`): counts by state, the clusters
// late, stuck or failing for good, and the launch queue's state.
const STATE_CLASS = { converged: 'True', failed: 'False', 'not-available': 'False', queued: 'Unknown', running: 'Unknown', pending: 'Unknown', 'preconditions-not-met': 'Unknown' };
function fleetPanel(f) {
  const ids = (list, testid) => el('span', { 'data-testid': testid, 'data-count': String(list.length) },
    list.length ? list.map((id) => el('code', {}, short(id) + ' ')) : el('span', { class: 'muted' }, 'none'));
  const minutes = Math.round(f.not_converged_after_seconds / 60);
  return [
    el('div', { class: 'bar' }, el('strong', { 'data-testid': 'fleet-total', 'data-count': String(f.summary.total) }, f.summary.total + ' cluster(s)'),
      Object.entries(f.summary.by_state).map(([state, n]) => el('span', { 'data-testid': 'fleet-state', 'data-state': state, 'data-count': String(n) },
        badge(state + ' ' + n, n > 0 ? STATE_CLASS[state] : ''))),
      f.launch_queue ? el('span', { 'data-testid': 'launch-queue', 'data-state': f.launch_queue.state },
        badge('launch queue ' + f.launch_queue.state, f.launch_queue.state === 'RUNNING' ? 'True' : 'False')) : ''),
    el('table', {},
      row(['not converged after ' + minutes + ' min', ids(f.summary.not_converged, 'fleet-not-converged')]),
      row(['stuck in PreconditionsNotMet', ids(f.summary.stuck_preconditions, 'fleet-stuck')]),
      row(['failing permanently', ids(f.summary.permanent_failures, 'fleet-permanent')])),
  ];
}
function render(s) {
  $('updated').textContent = 'Updated ' + new Date(s.at).toLocaleTimeString() + '.';
  $('fleet').replaceChildren(...fleetPanel(s.fleet));
  if (s.errors.length) $('error').textContent = s.errors.join('; ');
  $('clusters').replaceChildren(...(s.clusters.length ? s.clusters.map((c) => clusterCard(c, s.executions)) : [el('div', { class: 'muted' }, 'No clusters yet: create a demo cluster.')]));
  $('executions').replaceChildren(row(['execution', 'cluster', 'operation', 'generation', 'state', 'attempts', 'started', 'duration', 'message'], true),
    ...s.executions.map((e) => row([e.id, short(e.clusterId), e.operation, e.generation, badge(e.state, e.state), String(e.attempts),
      e.started ? new Date(e.started).toLocaleTimeString() : '', e.durationMs == null ? '' : (e.durationMs / 1000).toFixed(1) + ' s', e.message])));
  $('mgmt').replaceChildren(...s.managementClusters.map((m) => el('div', { class: 'card', 'data-testid': 'management-cluster', 'data-name': m.name },
    el('strong', {}, m.name), m.error ? el('div', { id: '' }, m.error) : '',
    el('table', {}, row(['namespace', 'name', 'type', 'labels'], true),
      m.secrets.map((x) => row([x.namespace, x.name, x.type, el('span', {}, Object.entries(x.labels).map(([k, v]) => badge(k + '=' + v)))]))))));
  $('faults').replaceChildren(row(['emulator', 'match', 'answer', 'remaining'], true),
    ...s.faults.map((f) => row([f.component, f.match, String(f.status), String(f.remaining)])));
  $('dead').replaceChildren(row(['topic', 'message', 'published', 'about'], true),
    ...s.deadLetters.map((d) => row([d.topic, d.messageId, new Date(d.publishTime).toLocaleTimeString(), Object.entries(d.summary).map(([k, v]) => k + '=' + v).join(' ')])));
}
async function refresh() {
  try {
    const response = await fetch('/api/state');
    const state = await response.json();
    await Promise.all([...openTraces].map((id) => loadTrace(id).catch(() => undefined)));
    lastState = state;
    render(state);
  } catch (error) { $('error').textContent = 'The stack does not answer: ' + error; }
}
fetch('/api/fault-presets').then((r) => r.json()).then((presets) => $('presets').replaceChildren(
  ...Object.entries(presets).map(([key, text]) => el('button', { title: text, 'data-testid': 'fault-' + key, onclick: () => act('POST', '/api/faults/' + key) }, key))));
refresh();
setInterval(refresh, 1000);
</script>
</body>
</html>
`;
