// Compare: what changed under a path between two vids: added, changed and removed objects, from the commit log
// (GET /treecat/v1/commits?path=&since=&until=), so the cost follows the commits in between, not the subtree's size.
import * as api from '../api.js';
import { el, replace, table } from '../dom.js';
import { errorBox, href } from '../nav.js';

const LOG_PAGE = 1000;
/** The most commits one comparison reads; beyond it the page says the comparison is cut. */
const MAX_COMMITS = 20_000;

export async function renderCompare(page, { ids, params, version }) {
  const path = api.pathText(ids);
  const newest = (await api.query('/*', { kind: 'now' }, { limit: 1, results: 'inner' })).vid;
  const from = params.get('from') || (version.kind === 'vid' ? version.value : '');
  const to = params.get('to') || String(newest);
  const fromInput = el('input', { name: 'from', value: from, inputmode: 'numeric', size: 10, required: true });
  const toInput = el('input', { name: 'to', value: to, inputmode: 'numeric', size: 10, required: true });
  const form = el('form', { className: 'inline', 'aria-label': 'Versions to compare' },
    el('label', {}, 'From vid', fromInput),
    el('label', {}, 'To vid', toInput),
    el('button', { type: 'submit' }, 'Compare'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    location.hash = href('compare', ids, { from: fromInput.value.trim(), to: toInput.value.trim() }, { kind: 'now' });
  });
  const result = el('section', { id: 'comparison', 'aria-label': 'Comparison' });
  replace(page, el('h1', {}, `Compare ${ids.length ? path : 'the whole lake'}`), form, result);
  if (!from) {
    result.append(el('p', { className: 'notice' }, `Give the vid to compare from (the newest is ${newest}).`));
    return;
  }
  const fromVid = Number(from);
  const toVid = Number(to);
  if (!Number.isSafeInteger(fromVid) || !Number.isSafeInteger(toVid) || fromVid < 0 || toVid < 0) {
    result.append(errorBox(new Error(`Vids are whole numbers: from "${from}", to "${to}"`), 'Cannot compare'));
    return;
  }
  if (fromVid >= toVid) {
    result.append(errorBox(new Error(`"From" must be older than "to": ${fromVid} is not below ${toVid}`), 'Cannot compare'));
    return;
  }
  replace(result, el('p', { className: 'notice' }, 'Reading the commit log…'));
  // The state at "from" is read too: an expired "from" is refused, as any read there is.
  await api.query('/*', { kind: 'vid', value: String(fromVid) }, { limit: 1, results: 'inner' });
  const { changes, bulk, commits, cut } = await netChanges(path, ids.length === 0, fromVid, toVid);
  const groups = { added: [], changed: [], removed: [] };
  for (const [changedPath, change] of changes) {
    groups[change.kind].push([changedPath, change]);
  }
  const at = (vid) => ({ kind: 'vid', value: String(vid) });
  const list = (name, rows, vid) => el('section', { 'aria-label': name, id: `compare-${name}` },
    el('h2', {}, `${name[0].toUpperCase()}${name.slice(1)} (${rows.length})`),
    rows.length ? table(name, ['path', 'object', 'last commit'], rows.map(([p, c]) => [
      el('a', { href: href('browse', api.pathIds(p), {}, at(vid)) }, p), c.objectKind, `vid ${c.lastVid}`,
    ])) : el('p', { className: 'notice' }, 'None.'));
  replace(result,
    el('p', { className: 'notice', id: 'compare-summary' },
      `${commits} commit${commits === 1 ? '' : 's'} between vid ${fromVid} and vid ${toVid} touched ${ids.length ? path : 'the lake'}.`),
    cut ? el('p', { className: 'error', role: 'alert' }, `Only the first ${MAX_COMMITS} commits were read; narrow the range.`) : null,
    list('added', groups.added, toVid),
    list('changed', groups.changed, toVid),
    list('removed', groups.removed, fromVid),
    bulk.length ? el('section', { 'aria-label': 'Bulk commits' }, el('h2', {}, 'Bulk commits'),
      el('p', { className: 'notice' }, 'These commits changed too many objects to list them; they touched:'),
      el('ul', {}, bulk.map((b) => el('li', {}, `vid ${b.vid}: under ${b.prefixes.join(', ')}`)))) : null);
}

/**
 * The net change of every object under `path` from `fromVid` to `toVid`: added (absent at "from", present at "to"),
 * removed (the reverse), changed (present at both, updated in between); an object added and removed in between is
 * no change.
 */
async function netChanges(path, wholeLake, fromVid, toVid) {
  const changes = new Map();
  const bulk = [];
  let commits = 0;
  let token;
  let cut = false;
  const under = (p) => wholeLake || p === path || p.startsWith(`${path}/`);
  do {
    const page = await api.commits({
      path: wholeLake ? undefined : path, since: fromVid + 1, until: toVid, limit: LOG_PAGE, pageToken: token,
    });
    for (const commit of page.commits) {
      commits += 1;
      if (commit.compact) {
        bulk.push({ vid: commit.vid, prefixes: commit.prefixes || [] });
        continue;
      }
      for (const change of commit.changes || []) {
        if (!under(change.path)) {
          continue;
        }
        const seen = changes.get(change.path);
        const existedBefore = seen ? seen.existedBefore : change.change !== 'added';
        changes.set(change.path, {
          existedBefore, last: change.change, objectKind: change.kind, lastVid: commit.vid,
        });
      }
    }
    token = page.nextPageToken;
    if (commits >= MAX_COMMITS && token) {
      cut = true;
      token = undefined;
    }
  } while (token);
  const net = new Map();
  for (const [p, c] of [...changes.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const existsAfter = c.last !== 'removed';
    if (!c.existedBefore && existsAfter) {
      net.set(p, { ...c, kind: 'added' });
    } else if (c.existedBefore && !existsAfter) {
      net.set(p, { ...c, kind: 'removed' });
    } else if (c.existedBefore && existsAfter) {
      net.set(p, { ...c, kind: 'changed' });
    }
  }
  return { changes: net, bulk, commits, cut };
}
