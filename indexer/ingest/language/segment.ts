/**
 * Words of the scripts written without spaces between them — Chinese, Japanese, Thai (and Lao,
 * Khmer, Burmese) — found by `Intl.Segmenter`, whose ICU dictionaries know where their words
 * end. Korean separates its words with spaces, but a run of Hangul mixed with Han goes here too.
 * Documents and queries are segmented alike, so a word of a Japanese sentence is a word of the
 * index, and a query holding it finds the page.
 */

/** A letter of a script that needs a dictionary to be split into words. */
export const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

let segmenter: Intl.Segmenter | undefined;

/**
 * The words of a run of letters holding such characters, with their offsets in it. ICU picks its
 * dictionary by script, whatever the locale: one segmenter serves every language.
 */
export function unspacedWords(run: string): Intl.SegmentData[] {
  segmenter ??= new Intl.Segmenter('ja', { granularity: 'word' });
  const out: Intl.SegmentData[] = [];
  for (const s of segmenter.segment(run)) if (s.isWordLike) out.push(s);
  return out;
}
