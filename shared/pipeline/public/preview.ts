/** What the API's rule preview runs of the evaluate path: the same steps, over records it hands in. */
export { arrivalOf, previewRule } from '../preview';
