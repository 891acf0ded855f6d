// Activity: the commit log, newest first, then live commits from the change feed (long polls of
// /treecat/v1/changes) while the page is open; filtered by subtree and by principal.
import * as api from '../api.js';
import { el, replace } from '../dom.js';
import { errorBox, href } from '../nav.js';

const WAIT = '25s';

export async function renderActivity(page, { params }) {
  const path = params.get('path') || '';
  const principal = params.get('principal') || '';
  const pathInput = el('input', { name: 'path', value: path, placeholder: '/catalog/namespace', size: 28 });
  const principalInput = el('input', { name: 'principal', value: principal, placeholder: 'any', size: 16 });
  const filters = el('form', { className: 'inline', 'aria-label': 'Filters' },
    el('label', {}, 'Subtree', pathInput),
    el('label', {}, 'Principal', principalInput),
    el('button', { type: 'submit' }, 'Filter'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = {};
    if (pathInput.value.trim()) next.path = pathInput.value.trim();
    if (principalInput.value.trim()) next.principal = principalInput.value.trim();
    location.hash = href('activity', [], next, { kind: 'now' });
  });
  const status = el('p', { className: 'notice', id: 'feed-status' }, 'Loading the commit log…');
  const list = el('ol', { className: 'timeline', id: 'commits', 'aria-label': 'Commits, newest first' });
  replace(page, el('h1', {}, 'Activity'), filters, status, list);

  const filter = { path: path || undefined, principal: principal || undefined };
  const recent = await api.commits({ ...filter, order: 'newest', limit: 50 });
  for (const commit of recent.commits) {
    list.append(entry(commit));
  }
  let after = recent.commits.length ? recent.commits[0].vid : undefined;
  if (after === undefined) {
    // An empty log here: follow from the newest vid.
    after = (await api.query('/*', { kind: 'now' }, { limit: 1, results: 'inner' })).vid;
  }
  status.textContent = 'Following new commits live.';
  follow(list, status, filter, after);
}

/**
 * Long-polls the feed while this page is the one shown; new commits go on top. Leaving the page cancels the waiting
 * poll at once: a browser keeps few connections per server, and a forgotten poll would hold one for its whole wait.
 */
async function follow(list, status, filter, after) {
  const shownAt = location.hash;
  const leaving = new AbortController();
  const leave = () => {
    if (location.hash !== shownAt) {
      leaving.abort();
      window.removeEventListener('hashchange', leave);
    }
  };
  window.addEventListener('hashchange', leave);
  let resumeAfter = after;
  while (location.hash === shownAt && list.isConnected) {
    try {
      const answer = await api.changes({ after: resumeAfter, path: filter.path, wait: WAIT, limit: 100 }, leaving.signal);
      if (location.hash !== shownAt || !list.isConnected) {
        return;
      }
      for (const commit of answer.commits) {
        if (!filter.principal || commit.principal === filter.principal) {
          list.prepend(entry(commit));
        }
      }
      resumeAfter = answer.resumeAfter;
      status.textContent = `Following new commits live (up to vid ${resumeAfter}).`;
    } catch (error) {
      if (error.name !== 'AbortError') {
        replace(status, errorBox(error, 'The change feed stopped'));
      }
      return;
    }
  }
}

function entry(commit) {
  const changes = commit.changes || [];
  return el('li', { 'data-vid': commit.vid },
    el('strong', {}, `vid ${commit.vid}`), '  ', commit.commitTime, '  ',
    el('span', { className: 'pill' }, `${commit.interface}.${commit.operation}`), '  ',
    commit.principal ? `by ${commit.principal}  ` : '',
    `+${commit.added} ~${commit.updated} -${commit.removed}`, '  ',
    el('a', { href: href('browse', [], {}, { kind: 'vid', value: commit.vid }) }, 'lake at this vid'),
    changes.length ? el('ul', { className: 'changes' }, changes.slice(0, 10).map((c) => el('li', {},
      `${c.change} `, el('a', { href: href('browse', api.pathIds(c.path), {}, { kind: 'vid', value: commit.vid }) }, c.path))),
    changes.length > 10 ? el('li', {}, `… ${changes.length - 10} more`) : null) : null,
    commit.prefixes ? el('ul', { className: 'changes' }, commit.prefixes.slice(0, 10).map((p) => el('li', {}, `under ${p}`))) : null);
}
