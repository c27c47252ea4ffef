/** How the API tells whether a maintenance silence is in force, as evaluation does. */
export { compileSilence, silenceActiveAt } from '../maintenance-silence';
