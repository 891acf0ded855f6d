// Sign-in with a built-in principal's client id and secret (docs/security.md): the token is kept for this tab only
// (sessionStorage) and sent with every call; the server decides what it may see.
import * as api from '../api.js';
import { el, replace } from '../dom.js';
import { errorBox, href } from '../nav.js';

export async function renderSignIn(page) {
  const clientId = el('input', { name: 'client_id', id: 'client-id', autocomplete: 'username', required: true });
  const secret = el('input', { name: 'client_secret', id: 'client-secret', type: 'password', autocomplete: 'current-password', required: true });
  const outcome = el('div', { 'aria-live': 'assertive' });
  const form = el('form', { className: 'inline', 'aria-label': 'Sign in' },
    el('label', { for: 'client-id' }, 'Client id', clientId),
    el('label', { for: 'client-secret' }, 'Secret', secret),
    el('button', { type: 'submit' }, 'Sign in'));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      await api.signIn(clientId.value.trim(), secret.value);
      secret.value = '';
      location.hash = href('browse', []);
    } catch (error) {
      replace(outcome, errorBox(error, 'Sign-in failed', { signInHint: false }));
    }
  });
  const { oidc } = await api.consoleSettings().catch(() => ({ oidc: null }));
  const issuer = oidc ? el('div', { className: 'row-actions' }, el('button', {
    type: 'button',
    id: 'issuer-sign-in',
    onclick: () => api.startIssuerSignIn(oidc, href('browse', []))
      .catch((error) => replace(outcome, errorBox(error, 'Sign-in failed', { signInHint: false }))),
  }, `Sign in with ${oidc.name}`)) : null;
  replace(page, el('h1', {}, 'Sign in'),
    issuer,
    el('p', {}, `${oidc ? 'Or with' : 'With'} a built-in principal of this server (its client id and secret). `
      + 'With authentication off, no sign-in is needed.'),
    form, outcome);
  (issuer ? issuer.querySelector('button') : clientId).focus();
}
