/**
 * A page's source — its host, language, type and topics (a focused crawl's classes) — for the
 * query filters `site:`, `lang:`, `type:` and `topic:` and for the facets. The index keeps one
 * small id per document (structures/source-dictionary.ts): most pages of a host share a language and a
 * type, so the source dictionary stays small and a filter or a facet is decided once per source,
 * not once per document.
 */

/** What a page's filters and facets read: its host (host[:port]), language (`en`; '' unknown) and type (`html`, `text`, `pdf`, `docx`…). */
/** `topics`: a focused crawl's classes of the page, sorted, space-separated ('' without focus). */
export type Source = { readonly host: string; readonly lang: string; readonly type: string; readonly topics: string };

export const NO_SOURCE: Source = { host: '', lang: '', type: '', topics: '' };

/** What the index is told of a page to know its source. */
export type SourceFields = {
  readonly url: string;
  readonly lang?: string;
  readonly contentType?: string;
  readonly topic?: { readonly classes: readonly { readonly name: string }[] };
  /** A document's format (`pdf`, `docx`, …) names its type, whatever the server called it. */
  readonly document?: { readonly format: string };
};

export function sourceOf(page: SourceFields): Source {
  return { host: hostOf(page.url), lang: languageOf(page.lang), type: page.document?.format ?? typeOf(page.contentType), topics: topicsOf(page.topic) };
}

/** Names a person may give a kind of document in `type:`, and the types each stands for. */
export const TYPE_ALIASES: Readonly<Record<string, readonly string[]>> = {
  slides: ['pptx', 'odp'],
  presentation: ['pptx', 'odp'],
  spreadsheet: ['xlsx', 'ods'],
  sheets: ['xlsx', 'ods'],
  doc: ['docx', 'odt'],
  word: ['docx', 'odt'],
  office: ['docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods'],
  md: ['markdown'],
  txt: ['text'],
  htm: ['html'],
};

/** The types a `type:` value means: itself, or those of its alias. */
export function typesOf(value: string): readonly string[] {
  return Object.hasOwn(TYPE_ALIASES, value) ? TYPE_ALIASES[value]! : [value];
}

/** A page's classes as one key: lowercase, sorted, space-separated (class names hold no spaces). */
function topicsOf(topic: SourceFields['topic']): string {
  return topic ? [...new Set(topic.classes.map((c) => c.name.toLowerCase()))].sort().join(' ') : '';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

/** The primary subtag of a language tag ("en-US" → "en"); '' when there is none or it is not one. */
export function languageOf(tag: string | undefined): string {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0]!;
  return /^[a-z]{2,3}$/.test(primary) ? primary : '';
}

/** A short name for a content type: `html`, `text` (plain), else its subtype (`pdf`). */
export function typeOf(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/plain') return 'text';
  return type.slice(type.indexOf('/') + 1).replace(/^x-/, '');
}
