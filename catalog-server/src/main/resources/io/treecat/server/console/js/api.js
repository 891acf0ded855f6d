// The console's only back end: the native JSON API (/treecat/v1) and Iceberg REST (/v1), the routes any script
// uses, with the signed-in user's bearer token. Nothing here is private to the console.

const NATIVE = '/treecat/v1';
const TOKEN_KEY = 'treecat.console.token';

/** A failed call, carrying the server's error: its type, message and context (a syntax error's position). */
export class ApiError extends Error {
  constructor(status, type, message, context) {
    super(message);
    this.status = status;
    this.type = type;
    this.context = context || {};
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** Exchanges a built-in principal's client id and secret for a token (OAuth2 client credentials). */
export async function signIn(clientId, secret) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });
  // credentials 'omit': the token endpoint answers a wrong secret 401 with "WWW-Authenticate: Basic" (RFC 6749
  // §5.2), and a browser would stop the call for its own password prompt; the console sends no cookies anyway.
  const response = await fetch('/v1/oauth/tokens', {
    method: 'POST',
    credentials: 'omit',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body,
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || !answer.access_token) {
    throw new ApiError(response.status, answer.error || 'UNAUTHENTICATED',
      answer.error_description || 'Sign-in refused: check the client id and secret');
  }
  sessionStorage.setItem(TOKEN_KEY, answer.access_token);
}

async function call(url, options = {}) {
  const headers = { Accept: 'application/json', ...(options.headers || {}) };
  const bearer = token();
  if (bearer) {
    headers.Authorization = `Bearer ${bearer}`;
  }
  let response;
  try {
    response = await fetch(url, { ...options, headers, credentials: 'omit' });
  } catch (e) {
    if (e.name === 'AbortError') {
      throw e;
    }
    throw new ApiError(0, 'UNREACHABLE', `The server cannot be reached: ${e.message}`);
  }
  if (response.status === 204) {
    return null;
  }
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    throw new ApiError(response.status, 'BAD_ANSWER', `The server answered ${response.status} with no JSON`);
  }
  if (!response.ok) {
    // Both APIs answer {"error": {"message", "type", "code", "context"?}}.
    const error = (body && body.error) || {};
    throw new ApiError(response.status, error.type || `HTTP_${response.status}`,
      error.message || `The server answered ${response.status}`, error.context);
  }
  return body;
}

/** The read point of the URL's version: {vid}, {snapshot}, {asOfTime} or none (the newest). */
export function readPointParams(version) {
  if (!version || version.kind === 'now') {
    return {};
  }
  const key = { vid: 'vid', snapshot: 'snapshot', time: 'asOfTime' }[version.kind];
  return key ? { [key]: version.value } : {};
}

function native(path, params, signal) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== '') {
      query.set(key, value);
    }
  }
  const suffix = query.toString();
  return call(`${NATIVE}${path}${suffix ? `?${suffix}` : ''}`, { signal });
}

/** One page of a path query: {vid, rows: [{path, kind, version, value}], nextPageToken}. */
export function query(q, version, { results, fields, limit, pageToken } = {}) {
  return native('/query', {
    q, ...readPointParams(version), results, fields: fields && fields.join(','), limit, pageToken,
  });
}

export function explain(q) {
  return native('/explain', { q });
}

/** One object: {vid, path, kind, version, value}. */
export function object(path, version) {
  return native('/objects', { path, ...readPointParams(version) });
}

export function snapshots() {
  return native('/snapshots');
}

export function commits(params) {
  return native('/commits', params);
}

/** A long poll of the change feed: {commits, resumeAfter, caughtUp}; `signal` ends it early. */
export function changes(params, signal) {
  return native('/changes', params, signal);
}

/**
 * A table as Iceberg REST loads it, at the URL's version: the read-only prefixes `<catalog>@<vid>`,
 * `<catalog>@snapshot=<name>`, `<catalog>@time=<time>` (docs/iceberg-rest.md) serve past versions.
 */
export function icebergTable(catalog, namespace, table, version) {
  return icebergLoad(catalog, namespace, 'tables', table, version);
}

/** A view as Iceberg REST loads it, at the URL's version. */
export function icebergView(catalog, namespace, view, version) {
  return icebergLoad(catalog, namespace, 'views', view, version);
}

function icebergLoad(catalog, namespace, kind, name, version) {
  let prefix = catalog;
  if (version && version.kind === 'vid') {
    prefix = `${catalog}@${version.value}`;
  } else if (version && version.kind === 'snapshot') {
    prefix = `${catalog}@snapshot=${version.value}`;
  } else if (version && version.kind === 'time') {
    prefix = `${catalog}@time=${version.value}`;
  }
  const ns = namespace.join('\u001f');
  return call(`/v1/${encodeURIComponent(prefix)}/namespaces/${encodeURIComponent(ns)}/${kind}/${encodeURIComponent(name)}`);
}

// ---- paths and queries

/** A path's escaped text form, as the API reads it: ids joined by '/', with '/' and '\' in an id escaped. */
export function pathText(ids) {
  return `/${ids.map((id) => id.replace(/\\/g, '\\\\').replace(/\//g, '\\/')).join('/')}`;
}

/** The ids of a path's escaped text form. */
export function pathIds(text) {
  const ids = [];
  let id = '';
  for (let i = 1; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      id += text[++i];
    } else if (c === '/') {
      ids.push(id);
      id = '';
    } else {
      id += c;
    }
  }
  if (text.length > 1) {
    ids.push(id);
  }
  return ids;
}

/** A string literal of the query language. */
export function literal(text) {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The query whose results are the children of the object at {@code ids}, then {@code step}. */
export function childrenQuery(ids, step = '*') {
  return `${ids.map((id) => `/[obj_id=${literal(id)}]`).join('')}/${step}`;
}

// ---- sign-in at an external issuer: OpenID Connect's authorization code flow with PKCE (RFC 7636)

const OIDC_KEY = 'treecat.console.oidc';

let settings;

/** How users sign in here, read once: {oidc: {name, issuer, discovery, clientId, scope, audience?} | null}. */
export function consoleSettings() {
  if (!settings) {
    settings = fetch('config.json', { credentials: 'omit' }).then((response) => {
      if (!response.ok) {
        throw new ApiError(response.status, 'BAD_ANSWER', "The console's settings cannot be read");
      }
      return response.json();
    });
  }
  return settings;
}

function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function discover(oidc) {
  const response = await fetch(oidc.discovery, { credentials: 'omit' });
  if (!response.ok) {
    throw new ApiError(response.status, 'OIDC_DISCOVERY', `The issuer's discovery document answered ${response.status}`);
  }
  return response.json();
}

/** Leaves for the issuer's sign-in page; it sends the browser back to this page with a code. */
export async function startIssuerSignIn(oidc, returnTo) {
  if (!window.crypto || !window.crypto.subtle) {
    throw new ApiError(0, 'INSECURE_PAGE', 'Signing in at an issuer needs the console over https (or on localhost)');
  }
  const discovery = await discover(oidc);
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  const state = base64url(crypto.getRandomValues(new Uint8Array(16)));
  sessionStorage.setItem(OIDC_KEY, JSON.stringify({ verifier, state, tokenEndpoint: discovery.token_endpoint, returnTo }));
  const url = new URL(discovery.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', oidc.clientId);
  url.searchParams.set('redirect_uri', redirectUri());
  url.searchParams.set('scope', oidc.scope);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', challenge);
  url.searchParams.set('code_challenge_method', 'S256');
  if (oidc.audience) {
    url.searchParams.set('audience', oidc.audience);
  }
  location.assign(url.toString());
}

function redirectUri() {
  return `${location.origin}${location.pathname}`;
}

/**
 * Finishes a sign-in the issuer sent the browser back from (`?code=…&state=…` on this page): exchanges the code for
 * a token and keeps it for this tab. Returns where to go next, or null when this page load is no such return.
 */
export async function finishIssuerSignIn(oidc) {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) {
    return null;
  }
  const pending = JSON.parse(sessionStorage.getItem(OIDC_KEY) || 'null');
  sessionStorage.removeItem(OIDC_KEY);
  // The code must not stay in the address bar or the history.
  history.replaceState(null, '', `${location.pathname}${(pending && pending.returnTo) || '#/browse'}`);
  if (params.has('error')) {
    throw new ApiError(401, params.get('error'), params.get('error_description') || 'The issuer refused the sign-in');
  }
  if (!pending || pending.state !== params.get('state') || !oidc) {
    throw new ApiError(400, 'OIDC_STATE', 'The sign-in answer does not match a sign-in this tab started');
  }
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    credentials: 'omit',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code'),
      redirect_uri: redirectUri(),
      client_id: oidc.clientId,
      code_verifier: pending.verifier,
    }),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || !answer.access_token) {
    throw new ApiError(response.status, answer.error || 'OIDC_TOKEN',
      answer.error_description || `The issuer's token endpoint answered ${response.status}`);
  }
  sessionStorage.setItem(TOKEN_KEY, answer.access_token);
  return pending.returnTo;
}
