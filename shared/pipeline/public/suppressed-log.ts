/** How the API reads a rule's suppressed log off a vehicle's noise state. */
export { openRun, runDetail } from '../noise-budget';
