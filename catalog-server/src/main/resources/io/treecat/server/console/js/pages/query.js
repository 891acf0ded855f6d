// Query: a path-query editor (highlighted as typed), results a page at a time by continuation, the plan, and the
// timings; a syntax error is marked where the server's parser says it is.
import * as api from '../api.js';
import { el, json, replace, table } from '../dom.js';
import { errorBox, href } from '../nav.js';
import { tokens } from '../syntax.js';

const PAGE = 100;
const EXAMPLE = "/*/*/[obj_type='table']";

export async function renderQuery(page, { params, version }) {
  const initial = params.get('q') || EXAMPLE;
  const textarea = el('textarea', {
    id: 'query-text', name: 'q', rows: 4, spellcheck: 'false', autocomplete: 'off', 'aria-label': 'Path query',
  });
  textarea.value = initial;
  const highlight = el('pre', { 'aria-hidden': 'true' });
  const results = el('section', { 'aria-label': 'Results', id: 'results' });
  const form = el('form', { className: 'query', 'aria-label': 'Path query' },
    el('div', { className: 'editor' }, highlight, textarea),
    el('div', { className: 'row-actions' },
      el('button', { type: 'submit' }, 'Run'),
      el('span', { className: 'notice' }, 'Ctrl+Enter runs. Results are read at the version above.')));
  const paint = (errorAt) => replace(highlight, colour(textarea.value, errorAt), '\n');
  textarea.addEventListener('input', () => paint(-1));
  textarea.addEventListener('scroll', () => { highlight.scrollTop = textarea.scrollTop; });
  textarea.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const q = textarea.value;
    if (params.get('q') === q) {
      run(q, version, results, paint);
    } else {
      location.hash = href('query', [], { q });
    }
  });
  replace(page, el('h1', {}, 'Path query'), form, results);
  paint(-1);
  if (params.has('q')) {
    await run(initial, version, results, paint);
  }
}

/** The query as spans by token kind; the token holding `errorAt` (an offset) marked. */
function colour(text, errorAt) {
  return tokens(text).map((token) => {
    const marked = errorAt >= token.start && errorAt < token.start + token.text.length;
    const kind = token.kind === 'space' || token.kind === 'name' ? '' : `tok-${token.kind}`;
    return el('span', { className: `${kind}${marked ? ' tok-err' : ''}`.trim() || undefined }, token.text);
  }).concat(errorAt >= text.length ? [el('span', { className: 'tok-err' }, ' ')] : []);
}

async function run(q, version, results, paint) {
  replace(results, el('p', { className: 'notice' }, 'Running…'));
  const rows = [];
  let token = null;
  let pages = 0;
  const started = performance.now();
  let firstPageMs;
  let plan;
  try {
    [plan] = await Promise.all([api.explain(q).catch(() => null), nextPage()]);
  } catch (error) {
    replace(results, positioned(error, q), errorBox(error, 'The query failed'));
    const offset = error.context && error.context.position ? Number(error.context.position) - 1 : -1;
    paint(offset);
    return;
  }
  paint(-1);
  show();

  async function nextPage() {
    const pageStarted = performance.now();
    const answer = await api.query(q, version, { limit: PAGE, pageToken: token });
    pages += 1;
    if (firstPageMs === undefined) {
      firstPageMs = performance.now() - pageStarted;
    }
    for (const row of answer.rows) {
      rows.push(row);
    }
    token = answer.nextPageToken;
    results.dataset.vid = answer.vid;
    return answer;
  }

  function show() {
    const total = performance.now() - started;
    const more = token ? el('button', {
      type: 'button',
      onclick: async () => {
        try {
          await nextPage();
          show();
        } catch (error) {
          results.append(errorBox(error, 'The next page failed'));
        }
      },
    }, `Next ${PAGE}`) : null;
    replace(results,
      el('p', { className: 'notice', id: 'query-summary' },
        `${rows.length} row${rows.length === 1 ? '' : 's'}${token ? ' so far' : ''}, read at vid ${results.dataset.vid}; `
        + `first page ${firstPageMs.toFixed(1)} ms, ${pages} page${pages === 1 ? '' : 's'} ${total.toFixed(1)} ms in all.`),
      rows.length ? table('Query results', ['path', 'kind', 'version', 'value'], rows.map((row) => [
        el('a', { href: href('browse', api.pathIds(row.path)) }, row.path),
        row.kind,
        String(row.version),
        el('code', {}, json(row.value, 200)),
      ])) : el('p', { className: 'notice' }, 'No objects match.'),
      el('div', { className: 'row-actions' }, more),
      plan ? el('details', {}, el('summary', {}, 'Plan'), el('pre', { id: 'query-plan' }, plan.plan)) : null);
  }
}

/** A syntax error drawn under the query: the line it is on, and a caret at its column. */
function positioned(error, q) {
  const context = error.context || {};
  if (!context.line || !context.column) {
    return null;
  }
  const line = q.split('\n')[Number(context.line) - 1] || '';
  return el('div', { className: 'error', role: 'alert', id: 'query-error-position' },
    el('div', { className: 'title' }, `Line ${context.line}, column ${context.column}`),
    el('pre', { className: 'caret-line' }, `${line}\n${' '.repeat(Math.max(0, Number(context.column) - 1))}^`));
}
