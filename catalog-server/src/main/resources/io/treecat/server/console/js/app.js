// The console's shell: the hash route (#/<section>/<path…>?<version>) picks a page; the version picker puts the
// catalog version into the URL, so every page can be shown, linked and reloaded as of a past vid.
import { consoleSettings, finishIssuerSignIn, signOut, token } from './api.js';
import { el, replace } from './dom.js';
import { errorBox, href, route } from './nav.js';
import { renderActivity } from './pages/activity.js';
import { renderBrowse } from './pages/browse.js';
import { renderCompare } from './pages/compare.js';
import { renderQuery } from './pages/query.js';
import { renderSignIn } from './pages/signin.js';

const page = document.getElementById('page');
const versionForm = document.getElementById('version');
const versionKind = document.getElementById('version-kind');
const versionValue = document.getElementById('version-value');

function showVersion(version) {
  versionKind.value = version.kind;
  versionValue.value = version.kind === 'now' ? '' : version.value;
  versionValue.disabled = version.kind === 'now';
}

versionKind.addEventListener('change', () => {
  versionValue.disabled = versionKind.value === 'now';
  versionValue.placeholder = { now: 'newest', vid: 'e.g. 42', snapshot: 'name', time: '2026-11-28T09:00:00Z' }[versionKind.value];
  if (!versionValue.disabled) {
    versionValue.focus();
  }
});

versionForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const current = route();
  const kind = versionKind.value;
  const value = versionValue.value.trim();
  const version = kind === 'now' || value === '' ? { kind: 'now' } : { kind, value };
  const params = Object.fromEntries([...current.params].filter(([k]) => !['vid', 'snapshot', 'time'].includes(k)));
  location.hash = href(current.section, current.ids, params, version);
});

function showWho() {
  const who = document.getElementById('who');
  if (token()) {
    replace(who, 'Signed in ', el('button', {
      type: 'button',
      onclick: () => { signOut(); render(); },
    }, 'Sign out'));
  } else {
    replace(who, el('a', { href: href('sign-in') }, 'Sign in'));
  }
}

async function render() {
  const current = route();
  showVersion(current.version);
  showWho();
  for (const link of document.querySelectorAll('nav a')) {
    if (link.dataset.section === current.section) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
  const pages = {
    browse: renderBrowse, compare: renderCompare, query: renderQuery, activity: renderActivity, 'sign-in': renderSignIn,
  };
  const renderPage = pages[current.section];
  if (!renderPage) {
    replace(page, errorBox(new Error(`No such page: ${current.section}`), 'Not found'));
    return;
  }
  // Each render fills its own view: one still waiting for an answer when the route moves on (a sign-out, a link
  // clicked) finishes into a view no longer on the page, and cannot overwrite the newer one.
  const view = el('div', { className: 'view' }, el('p', { className: 'notice' }, 'Loading…'));
  replace(page, view);
  try {
    await renderPage(view, current);
  } catch (error) {
    replace(view, errorBox(error, 'The page could not be shown'));
  }
  if (view.isConnected) {
    document.title = `TreeCat – ${current.section}`;
  }
}

// The skip link moves the focus to the page; as a plain "#page" link it would change the route.
document.querySelector('.skip').addEventListener('click', (event) => {
  event.preventDefault();
  page.focus();
});

window.addEventListener('hashchange', render);

// A return from the issuer's sign-in page finishes the sign-in before the first page is shown.
consoleSettings()
  .catch(() => ({ oidc: null }))
  .then((loaded) => finishIssuerSignIn(loaded.oidc))
  .then(() => render(), (error) => {
    render().then(() => page.prepend(errorBox(error, 'Sign-in failed')));
  });
