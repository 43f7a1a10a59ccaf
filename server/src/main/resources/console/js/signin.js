import { api, session, ApiError } from './api.js';
import { h, replace } from './dom.js';

export function renderSignIn(main, onSignedIn) {
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false',
    placeholder: 'pdk_…', required: true });
  const error = h('p', { id: 'sign-in-error', class: 'form-error', role: 'alert', hidden: true });
  const button = h('button', { class: 'btn btn-primary', type: 'submit' }, 'Sign in');
  const form = h('form', { class: 'signin-form', onsubmit: submit },
    h('label', { for: 'api-key' }, 'API key'), input, error, button,
    h('p', { class: 'muted small' }, 'The first start of ', h('code', {}, 'paddock serve'), ' printed an admin key and saved it to ',
      h('code', {}, '~/.paddock/admin.key'), '. The key stays in this browser tab only.'));

  async function submit(event) {
    event.preventDefault();
    const key = input.value.trim();
    error.hidden = true;
    if (!key) return;
    button.disabled = true;
    try {
      await api.checkKey(key);
      session.signIn(key);
      onSignedIn();
    } catch (err) {
      error.textContent = err instanceof ApiError && err.status === 401
        ? `That API key was not accepted: ${err.message}`
        : `Could not sign in: ${err.message}`;
      error.hidden = false;
      input.select();
    } finally {
      button.disabled = false;
    }
  }

  replace(main, h('section', { class: 'signin panel' }, h('h1', {}, 'Sign in to Paddock'), form));
  input.focus();
}
