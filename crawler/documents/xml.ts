/**
 * One streaming walk over an XML part (htmlparser2 in XML mode: no tree is built, so a 50 MB
 * document.xml costs its text, not a DOM ten times its size).
 *
 * Element and attribute names are reported with a canonical prefix for each namespace the
 * extractors know (`w:p`, `r:id`, `text:h`, `x:c` for SpreadsheetML's usual default namespace),
 * whatever prefix the file bound it to, and the ISO "strict" OOXML namespaces map to the same
 * prefixes as the transitional ones. A name in a namespace not listed keeps the prefix it was
 * written with.
 *
 * Safe with hostile XML: htmlparser2 expands no DTD entity (no "billion laughs") and fetches nothing.
 */
import { Parser } from 'htmlparser2';

export type XmlHandlers = {
  open?(name: string, attrs: Readonly<Record<string, string>>): void;
  text?(text: string): void;
  close?(name: string): void;
};

const NAMESPACES: Readonly<Record<string, string>> = {
  'http://schemas.openxmlformats.org/wordprocessingml/2006/main': 'w',
  'http://purl.oclc.org/ooxml/wordprocessingml/main': 'w',
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships': 'r',
  'http://purl.oclc.org/ooxml/officeDocument/relationships': 'r',
  'http://schemas.openxmlformats.org/drawingml/2006/main': 'a',
  'http://purl.oclc.org/ooxml/drawingml/main': 'a',
  'http://schemas.openxmlformats.org/presentationml/2006/main': 'p',
  'http://purl.oclc.org/ooxml/presentationml/main': 'p',
  'http://schemas.openxmlformats.org/spreadsheetml/2006/main': 'x',
  'http://purl.oclc.org/ooxml/spreadsheetml/main': 'x',
  'http://schemas.openxmlformats.org/package/2006/relationships': 'rel',
  'http://schemas.openxmlformats.org/package/2006/metadata/core-properties': 'cp',
  'http://schemas.openxmlformats.org/officeDocument/2006/extended-properties': 'ep',
  'http://purl.oclc.org/ooxml/officeDocument/extendedProperties': 'ep',
  'http://purl.org/dc/elements/1.1/': 'dc',
  'http://purl.org/dc/terms/': 'dcterms',
  'urn:oasis:names:tc:opendocument:xmlns:office:1.0': 'office',
  'urn:oasis:names:tc:opendocument:xmlns:text:1.0': 'text',
  'urn:oasis:names:tc:opendocument:xmlns:table:1.0': 'table',
  'urn:oasis:names:tc:opendocument:xmlns:drawing:1.0': 'draw',
  'urn:oasis:names:tc:opendocument:xmlns:presentation:1.0': 'presentation',
  'urn:oasis:names:tc:opendocument:xmlns:meta:1.0': 'meta',
  'urn:oasis:names:tc:opendocument:xmlns:style:1.0': 'style',
  'http://www.w3.org/1999/xlink': 'xlink',
  'http://www.w3.org/XML/1998/namespace': 'xml',
  'http://schemas.openxmlformats.org/markup-compatibility/2006': 'mc',
};

/** Prefix → canonical prefix ('' for no namespace), and whether every prefix maps to itself. */
type Scope = { readonly map: ReadonlyMap<string, string>; readonly identity: boolean };

const ROOT: Scope = { map: new Map([['xml', 'xml']]), identity: true };

export function walkXml(xml: string, handlers: XmlHandlers): void {
  const scopes: Scope[] = [];
  let scope = ROOT;
  const parser = new Parser(
    {
      onopentag(raw, attribs) {
        scopes.push(scope);
        scope = declare(scope, attribs);
        if (handlers.open) handlers.open(canonical(scope, raw, true), scope.identity ? attribs : canonicalAttrs(scope, attribs));
      },
      ontext(text) {
        handlers.text?.(text);
      },
      onclosetag(raw) {
        handlers.close?.(canonical(scope, raw, true));
        scope = scopes.pop() ?? ROOT;
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
}

/** The scope inside an element: its parent's, plus the namespaces the element declares. */
function declare(parent: Scope, attribs: Record<string, string>): Scope {
  let map: Map<string, string> | undefined;
  for (const key in attribs) {
    if (key !== 'xmlns' && !key.startsWith('xmlns:')) continue;
    map ??= new Map(parent.map);
    const prefix = key === 'xmlns' ? '' : key.slice(6);
    const uri = attribs[key]!;
    // An unknown namespace keeps its prefix; the default namespace, when unknown, is no prefix.
    map.set(prefix, NAMESPACES[uri] ?? prefix);
  }
  if (!map) return parent;
  let identity = true;
  for (const [k, v] of map) if (k !== v) identity = false;
  return { map, identity };
}

function canonical(scope: Scope, raw: string, isElement: boolean): string {
  const colon = raw.indexOf(':');
  const prefix = colon < 0 ? '' : raw.slice(0, colon);
  // Unprefixed attributes are in no namespace, whatever the default namespace.
  if (colon < 0 && !isElement) return raw;
  const local = colon < 0 ? raw : raw.slice(colon + 1);
  // An undeclared prefix (a sloppy writer) is taken as written.
  const to = scope.map.get(prefix) ?? prefix;
  return to ? `${to}:${local}` : local;
}

function canonicalAttrs(scope: Scope, attribs: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in attribs) out[key.startsWith('xmlns') ? key : canonical(scope, key, false)] = attribs[key]!;
  return out;
}

/**
 * `handlers`, blind to the elements named in `skipped` and to everything inside them (elements and
 * text): text that is not the document's (deleted runs, a drawing's fallback copy, comments). Skipped
 * elements inside skipped ones are counted, so that the walk is reported again only once the
 * outermost has closed. (The parser's events are balanced: a stray end tag is never reported, an
 * element left open is closed, so the count never goes below zero.)
 */
export function skipping(skipped: ReadonlySet<string>, handlers: XmlHandlers): XmlHandlers {
  let depth = 0;
  return {
    open(name, attrs) {
      if (skipped.has(name)) depth++;
      if (depth === 0) handlers.open?.(name, attrs);
    },
    text(text) {
      if (depth === 0) handlers.text?.(text);
    },
    close(name) {
      if (skipped.has(name)) depth--;
      else if (depth === 0) handlers.close?.(name);
    },
  };
}

/**
 * The text of the first element of each name in `wanted` (all of them, joined by ", ", for names in
 * `repeated`), over a small part such as docProps/core.xml or meta.xml; attributes are read by
 * `onOpen` if given.
 */
export function readFields(
  xml: string,
  wanted: ReadonlySet<string>,
  repeated: ReadonlySet<string> = new Set(),
  onOpen?: (name: string, attrs: Readonly<Record<string, string>>) => void,
): Map<string, string> {
  const fields = new Map<string, string>();
  let current: string | undefined;
  let parts: string[] = [];
  walkXml(xml, {
    open(name, attrs) {
      onOpen?.(name, attrs);
      if (current === undefined && wanted.has(name)) {
        current = name;
        parts = [];
      }
    },
    text(t) {
      if (current !== undefined) parts.push(t);
    },
    close(name) {
      if (name !== current) return;
      const value = parts.join('').trim();
      const before = fields.get(name);
      if (value && (before === undefined || repeated.has(name))) fields.set(name, before ? `${before}, ${value}` : value);
      current = undefined;
    },
  });
  return fields;
}

/**
 * What a capture keeps unless told otherwise: a heading's or an anchor's text, which the page keeps
 * up to 500 and 300 characters (FIELD_CAPS) once its white space is squashed.
 */
const MAX_CAPTURE_CHARS = 1000;

/** Text gathered while inside an element (a heading, a link), up to `max` characters. */
export class Capture {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(private readonly max = MAX_CAPTURE_CHARS) {}

  add(s: string): void {
    if (this.length >= this.max) return;
    this.parts.push(s);
    this.length += s.length;
  }

  get text(): string {
    return this.parts.join('');
  }
}
