/** The daemon's own services, for tests that build a module's engine by hand (modules may not import services/). */
export { Webhooks } from '../services/webhooks.js';
export { httpChallenges } from '../services/httpchallenges.js';
