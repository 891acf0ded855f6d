// Where the console is: the hash route (#/<section>/<path…>?<params>&<version>) and links to other routes.
import { ApiError } from './api.js';
import { el } from './dom.js';

/** The route of the URL: {section, ids (the browse path), params, version}. */
export function route() {
  const hash = location.hash.replace(/^#/, '') || '/browse';
  const [pathPart, queryPart = ''] = hash.split('?');
  const segments = pathPart.split('/').filter((s, i) => i > 0 && !(i === 1 && s === ''));
  const section = segments.shift() || 'browse';
  const params = new URLSearchParams(queryPart);
  let version = { kind: 'now' };
  for (const kind of ['vid', 'snapshot', 'time']) {
    if (params.has(kind)) {
      version = { kind, value: params.get(kind) };
    }
  }
  return { section, ids: segments.map(decoded), params, version };
}

/** A path segment of the URL, decoded; one that is not valid percent-encoding stays as typed. */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch (e) {
    return segment;
  }
}

/** A link to a route, keeping the current version unless `version` says otherwise. */
export function href(section, ids = [], params = {}, version = route().version) {
  const query = new URLSearchParams(params);
  if (version && version.kind !== 'now') {
    query.set(version.kind, version.value);
  }
  const path = [section, ...ids.map(encodeURIComponent)].join('/');
  const suffix = query.toString();
  return `#/${path}${suffix ? `?${suffix}` : ''}`;
}

/** An error as the page shows it: what failed, the server's message and its context, never a stack. */
export function errorBox(error, what, { signInHint = true } = {}) {
  if (signInHint && error instanceof ApiError && error.status === 401) {
    return el('div', { className: 'error', role: 'alert' },
      el('div', { className: 'title' }, 'Sign-in needed'),
      el('p', {}, error.message, ' ', el('a', { href: href('sign-in') }, 'Sign in')));
  }
  const type = error instanceof ApiError ? error.type : 'ERROR';
  const context = error instanceof ApiError ? Object.entries(error.context) : [];
  return el('div', { className: 'error', role: 'alert', 'data-error-type': type },
    el('div', { className: 'title' }, `${what}: ${type}`),
    el('p', {}, error.message),
    context.length ? el('p', { className: 'mono' }, context.map(([k, v]) => `${k}=${v}`).join('  ')) : null);
}

