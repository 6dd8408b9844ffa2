/** The console's client instance: token from storage, the page's language, messages to the corner. */
import { lang } from '../i18n';
import { storage } from '../storage';
import { createClient } from './client';
import { pushNotice } from './notices';

let toLogin: () => void = () => {
  window.location.hash = '#/login';
};
let onLost: () => void = () => undefined;

// A page being left (a reload, the language switch) has its requests in flight cut by the browser:
// those are not the daemon failing, and must not end the session the next page would start with.
let leaving = false;
if (typeof window !== 'undefined') {
  window.addEventListener('pagehide', () => (leaving = true));
  window.addEventListener('pageshow', () => (leaving = false));
}

/** The router tells the client how to show /login; the query cache is dropped at the same time. */
export function setSessionLostHandlers(navigate: () => void, cleanup: () => void): void {
  toLogin = navigate;
  onLost = cleanup;
}

export const api = createClient({
  baseUrl: () => document.baseURI,
  token: () => storage.get('token') || undefined,
  lang: () => lang,
  onSessionLost: (reason) => {
    if (leaving && reason === 'transport') return;
    // Why the console went back to /login, for whoever opens the browser's console.
    console.warn(`[lucky] back to the login: ${reason === 'session' ? 'the daemon ended the session' : 'the daemon did not answer 3 times in a row'}`);
    storage.remove('token');
    onLost();
    toLogin();
  },
  onBackendError: (message) => pushNotice(message, 'red'),
});

export const call = api.call;
export { ApiError } from './client';
