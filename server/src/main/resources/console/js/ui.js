// Feedback shared by every view: a toast for failures, and a signal when the key stopped working.
import { session, ApiError } from './api.js';

let toastTimer = null;

export function toast(message, kind = 'error') {
  const box = document.getElementById('toast');
  box.textContent = message;
  box.className = `toast toast-${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

export function hideToast() {
  document.getElementById('toast').hidden = true;
}

/** Reports a failed call; an API key that is refused sends the user back to sign in. */
export function fail(err) {
  if (err instanceof ApiError && err.status === 401) {
    session.signOut();
    window.dispatchEvent(new Event('paddock:signed-out'));
    toast('Your API key is no longer accepted. Sign in again.');
    return;
  }
  const code = err instanceof ApiError && err.code ? ` (${err.code})` : '';
  toast(`${err.message}${code}`);
}
