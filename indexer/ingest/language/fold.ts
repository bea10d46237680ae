/**
 * Folding: what makes two spellings of a word one term. Case; compatibility forms (ﬁ, full-width
 * Ｐ, ², half-width ｶ: Unicode's K normalization); and the diacritics of Latin, Greek and Cyrillic
 * letters ("Ü" → "u", "é" → "e", "ß" → "ss"), so that "resume" finds "résumé" (the page that
 * writes the query's form ranks first: query/exact-forms.ts).
 *
 * Not folded: й (a letter of its own in Russian and Ukrainian, whose endings the Russian stemmer
 * reads), nor the marks of other scripts, which are part of their letters — Japanese dakuten
 * (が is not か), Thai vowels and tones, Indic vowel signs.
 */

const ASCII = /^[\x00-\x7f]*$/;
const MARK = /\p{M}/u;
/** A mark on a Latin, Greek or Cyrillic letter (after any other marks on it). */
const DIACRITIC = /(?<=[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]\p{M}*)\p{M}/gu;
/** й stands in for itself while its breve would be folded away (a private-use character). */
const SHORT_I = /[йЙ]/;
const SHORT_IS = /[йЙ]/g;
const KEPT_SHORT_I = /\ue000/g;

let marked = false;

/** The folded form of a word (lowercase; see above). */
export function fold(word: string): string {
  marked = false;
  // Most tokens are ASCII: lowercasing is all they need (Unicode normalization is the slow part).
  if (ASCII.test(word)) return word.toLowerCase();
  const shortI = SHORT_I.test(word);
  let w = (shortI ? word.replace(SHORT_IS, '\ue000') : word).normalize('NFKD');
  if (MARK.test(w)) {
    const bare = w.replace(DIACRITIC, '');
    marked = bare.length !== w.length;
    w = bare;
  }
  // The other scripts' marks back onto their letters, Hangul syllables whole again; then the case
  // (after decomposing: 𝐀 is an A only then).
  w = w.normalize('NFC').toLowerCase();
  if (w.includes('ß')) {
    marked = true;
    w = w.replace(/ß/g, 'ss');
  }
  return shortI ? w.replace(KEPT_SHORT_I, 'й') : w;
}

/** Whether the word last folded lost a diacritic (or an ß): it is written in an exact form a query may ask for. */
export function foldedDiacritics(): boolean {
  return marked;
}
