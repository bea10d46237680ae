/**
 * Stemmers by language. A page is stemmed by its language's stemmer and a query by each stemmer
 * the index holds pages of (query/stems.ts), so "Häuser" finds a German page that says "Haus".
 *
 * - English, and pages of no known language: Porter's original stemmer (the `stemmer` package),
 *   what Trawl always used — bench/relevance was tuned on it, and Snowball's English is not what
 *   @orama/stemmers ships under that name (it stems "connection" to "connec").
 * - Twelve European languages: their Snowball stemmers, as the Snowball compiler's JavaScript
 *   output published by Orama (@orama/stemmers, maintained, 2–11 KB a language, no dependencies);
 *   the same stems as the Snowball project's own (Python) build on TeX Live's translations for
 *   French, Spanish, Italian, Portuguese and Russian (Snowball 2; German and Dutch changed in 3).
 * - Any other language (Chinese, Japanese, Polish…): none — words match as written (folded).
 *   Finnish's stemmer is left out: it can change a word's second letter ("kku" → "ku"), which
 *   query/locate.ts relies on never happening (stemmers.test.ts checks the others).
 *
 * Stemmers see folded words (tokenize.ts: lowercase, accents off), so that "resume" and "résumé"
 * are one term by construction. It costs French, Spanish and Portuguese a little conflation
 * (2–3 % more distinct stems on TeX Live's translations than stemming before folding), and
 * Russian nothing: fold keeps й, the one Cyrillic letter whose mark the Russian stemmer reads.
 */
import { stemmer as porter } from 'stemmer';
import { stemmer as danish } from '@orama/stemmers/danish';
import { stemmer as dutch } from '@orama/stemmers/dutch';
import { stemmer as french } from '@orama/stemmers/french';
import { stemmer as german } from '@orama/stemmers/german';
import { stemmer as hungarian } from '@orama/stemmers/hungarian';
import { stemmer as italian } from '@orama/stemmers/italian';
import { stemmer as norwegian } from '@orama/stemmers/norwegian';
import { stemmer as portuguese } from '@orama/stemmers/portuguese';
import { stemmer as romanian } from '@orama/stemmers/romanian';
import { stemmer as russian } from '@orama/stemmers/russian';
import { stemmer as spanish } from '@orama/stemmers/spanish';
import { stemmer as swedish } from '@orama/stemmers/swedish';
import { languageOf } from '../source.ts';

/**
 * `index.stemming`: each page by its language (the default), every page as English (Porter: what
 * Trawl did before it knew languages), or no stemming at all.
 */
export type Stemming = 'language' | 'english' | 'none';

/** A stemmer of folded words; `key` names it (a language code, or `none`): a page's terms are made by one. */
export type Stemmer = { readonly key: string; readonly stem: (word: string) => string };

/** Snowball's algorithms by language (primary subtag). Bokmål and Nynorsk share Norwegian's. */
const SNOWBALL: Readonly<Record<string, (word: string) => string>> = {
  da: danish,
  de: german,
  es: spanish,
  fr: french,
  hu: hungarian,
  it: italian,
  nb: norwegian,
  nl: dutch,
  nn: norwegian,
  no: norwegian,
  pt: portuguese,
  ro: romanian,
  ru: russian,
  sv: swedish,
};

/**
 * What the stemmers are, for the index manifest: a change (another package version, a language
 * added) makes the terms of the pages already indexed wrong, so the index is rebuilt.
 */
export const STEMMERS_VERSION = `en=porter(stemmer 2); ${Object.keys(SNOWBALL).join(' ')}=snowball(@orama/stemmers 3.1.18)`;

/**
 * The version of the rest of the analysis a page's terms depend on: folding, segmentation and
 * exact forms (2: languages — й kept, Thai segmented, diacritic terms).
 */
const ANALYSIS_VERSION = 2;

/** What a page's terms and token sequence depend on: the stemming and the analysis's version (stored with each sequence). */
export function analysisTag(): string {
  return `${stemming}/${ANALYSIS_VERSION}`;
}

/**
 * The terms a page makes beside its tokens, which the token sequences do not hold (so not in
 * analysisTag: a sequence stored before stays good): "identifiers" since identifiers are terms of
 * their own (../identifiers.ts); "headings by heading (HTML)" since an HTML page's headings field is
 * normalized by one heading's length (../analyze.ts headingsLength).
 */
const EXTRA_TERMS = 'identifiers; headings by heading (HTML)';

/** The same, the stemmers by language and the extra terms, for the index manifest: another one rebuilds the index. */
export function analysisLanguages(): string {
  return `${analysisTag()}; ${STEMMERS_VERSION}; ${EXTRA_TERMS}`;
}

// Documentation repeats its words: stems are cached, per stemmer, up to a bound. (The first words
// met are the common ones; 50,000 hold ~3 MB in each parse worker, 200,000 held ~12 MB.)
const MAX_CACHED = 50_000;

/**
 * A stemmer with a cache, applied only to the words `applies` accepts (the rest stay as they are).
 * The cache keeps copies of its words and stems: a word is a slice of the page's text, and V8 makes
 * a slice of 13 characters or more a view of the whole text — a cached long word kept every page it
 * was first seen on alive in the parse worker (bench/documents: whole PDFs' texts, tens of MB).
 */
function cached(key: string, algorithm: (word: string) => string, applies: RegExp): Stemmer {
  const cache = new Map<string, string>();
  return {
    key,
    stem(word) {
      let s = cache.get(word);
      if (s === undefined) {
        s = applies.test(word) ? algorithm(word) : word;
        if (cache.size < MAX_CACHED) {
          const copy = ownString(word);
          s = s === word ? copy : ownString(s);
          cache.set(copy, s);
        }
      }
      return s;
    },
  };
}

/** A string holding its own characters, not a view of a larger string (see `cached`). */
export function ownString(s: string): string {
  // (Concatenating makes a new string; its slice views that one, which holds only these characters.)
  return ` ${s}`.slice(1);
}

/** Porter's rules are for English words: tokens with digits or other letters are left alone. */
const ENGLISH = cached('en', porter, /^[a-z]+$/);
/** Snowball's likewise only stem words of letters (a version number or `utf8mb4` stays whole). */
const LETTERS = /^\p{L}+$/u;
const NONE: Stemmer = { key: 'none', stem: (word) => word };
const BY_LANGUAGE = new Map<string, Stemmer>(Object.entries(SNOWBALL).map(([lang, algorithm]) => [lang, cached(lang, algorithm, LETTERS)]));
// (Norwegian's three codes are one stemmer, one key.)
for (const code of ['nb', 'nn']) BY_LANGUAGE.set(code, { key: 'no', stem: BY_LANGUAGE.get(code)!.stem });

/**
 * The stemming of this thread's tokenizer: documents and queries must be tokenized alike, so the
 * appliance sets it once at start, in the main thread and in every parse worker.
 */
let stemming: Stemming = 'language';
export function setStemming(s: Stemming): void {
  stemming = s;
}
export function currentStemming(): Stemming {
  return stemming;
}

/**
 * The stemmer of a page in language `tag` (`de`, `de-AT`, `fr-x-detected`; '' or undefined when
 * unknown): its language's, Porter for English and for an unknown language, none for a language
 * Trawl has no stemmer for — and whatever `index.stemming` says otherwise.
 */
export function stemmerFor(tag: string | undefined): Stemmer {
  if (stemming === 'none') return NONE;
  if (stemming === 'english' || !tag) return ENGLISH;
  const lang = languageOf(tag);
  if (lang === '' || lang === 'en') return ENGLISH;
  return BY_LANGUAGE.get(lang) ?? NONE;
}

/** The stemmer named `key` (a Stemmer's key), or undefined. */
export function stemmerByKey(key: string): Stemmer | undefined {
  return key === 'none' ? NONE : key === 'en' ? ENGLISH : BY_LANGUAGE.get(key);
}
