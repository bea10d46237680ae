/**
 * A page's language from its text, when the page names none (`<html lang>`, Content-Language):
 * ELD (`eld`, the Efficient Language Detector: n-grams of 60 languages, pure JavaScript, no
 * dependencies), its smallest database. It reads the first 1,000 characters it is given — about
 * 0.1 ms of a parse worker's time per page — and is right on every page of the PostgreSQL
 * manual (bench/README.md). franc-min and tinyld took 5–6 ms a page, and were wrong on 5 and
 * 61 of them; ELD's larger databases cost 55–135 MB a thread for no gain on pages this long.
 *
 * The database (~1 MB of JavaScript, ~30 MB of heap) is loaded on the first page that needs it,
 * not at start: a thread that never meets such a page never pays for it.
 */
import type { eld as Eld } from 'eld';

/** Characters of the text looked at (ELD reads 1,000 of them): the cost per page is bounded. */
export const SAMPLE_CHARS = 2000;

/** The private-use subtag that marks a language tag as detected, not given (`fr-x-detected`, BCP 47). */
export const DETECTED = '-x-detected';

let detector: typeof Eld | undefined;
let loading: Promise<void> | undefined;
/** The detector could not be loaded: pages are then of unknown language (stemmed as English). */
let unavailable = false;

/** Loads the detector (once; later calls share the first). Never rejects. */
export function loadDetector(): Promise<void> {
  loading ??= import('eld/extrasmall').then(
    (m) => {
      detector = m.eld;
    },
    () => {
      unavailable = true;
    },
  );
  return loading;
}

/** Whether detectLanguage can answer now (loadDetector has completed). */
export function detectorLoaded(): boolean {
  return detector !== undefined || unavailable;
}

/**
 * The language of `text` as a tag marked detected (`de-x-detected`), or '' when the detector is
 * unsure — too little text, or two languages too close to call (ELD's `isReliable`). Call
 * loadDetector first.
 */
export function detectLanguage(text: string): string {
  if (unavailable) return '';
  if (!detector) throw new Error('detectLanguage: the detector is not loaded (loadDetector())');
  const result = detector.detect(text.length > SAMPLE_CHARS ? text.slice(0, SAMPLE_CHARS) : text);
  return result.language && result.isReliable() ? `${result.language}${DETECTED}` : '';
}
