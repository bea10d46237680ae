/**
 * Bytes → text, by WHATWG's encoding sniffing algorithm (encoding-sniffer, the sniffer cheerio
 * uses): a byte-order mark, else the HTTP Content-Type charset, else the real `<meta>` prescan of
 * the first 1024 bytes (attributes in any order, `http-equiv` pragmas, comments skipped, an XML
 * declaration's encoding), else UTF-8. Labels are resolved as browsers do (latin1 and ISO-8859-1
 * are windows-1252; x-sjis is Shift_JIS), and iconv-lite decodes what Node's TextDecoder gets
 * wrong (Node 20 decodes windows-1252 as ISO-8859-1). Invalid bytes become U+FFFD: a page is never
 * lost to its encoding.
 */
import { getEncoding } from 'encoding-sniffer';
import iconv from 'iconv-lite';

/**
 * The default when nothing names an encoding. WHATWG leaves it to the user's locale (windows-1252
 * in the West); most of the web is UTF-8 now, and Trawl has always taken it.
 */
const DEFAULT_ENCODING = 'UTF-8';

/** The text of `body`, and the encoding it was decoded with (its WHATWG name, lowercase). */
export function decodeBody(body: Buffer, contentType: string): { text: string; encoding: string } {
  const label = charsetParam(contentType);
  // A label WHATWG knows can only be overridden by a byte-order mark (3 bytes at most): the
  // <meta> prescan of the first 1024 bytes would find nothing that counts, and costs more than
  // the decoding (58 → 24 µs a page on the PostgreSQL docs, which nginx sends with charset=utf-8).
  const sniffed = label && knownLabel(label) ? body.subarray(0, 3) : body;
  const name = getEncoding(sniffed, { defaultEncoding: DEFAULT_ENCODING, ...(label ? { transportLayerEncodingLabel: label } : {}) });
  const encoding = name.toLowerCase();
  // A BOM is the sniffer's evidence, not part of the text.
  if (iconv.encodingExists(name)) return { text: iconv.decode(body, name, { stripBOM: true }), encoding };
  // The few iconv-lite lacks (ISO-2022-JP, x-user-defined) Node's ICU decodes; `replacement` (a
  // label kept to defeat attacks) is one U+FFFD, as the standard says.
  try {
    return { text: new TextDecoder(name).decode(body), encoding };
  } catch {
    return { text: '\ufffd', encoding };
  }
}

/** Labels seen in Content-Type headers, and whether the sniffer takes them (a WHATWG label). */
/** Labels whose answer is remembered (bounded: a hostile site could send a new label with every page). */
const MAX_KNOWN_LABELS = 256;
const knownLabels = new Map<string, boolean>();

/**
 * Whether the sniffer takes `label` as the transport layer's encoding. It then outranks any
 * default: with two different defaults the answer is the same only when the label was taken.
 */
function knownLabel(label: string): boolean {
  let known = knownLabels.get(label);
  if (known === undefined) {
    const empty = Buffer.alloc(0);
    known =
      getEncoding(empty, { transportLayerEncodingLabel: label, defaultEncoding: 'UTF-8' }) ===
      getEncoding(empty, { transportLayerEncodingLabel: label, defaultEncoding: 'windows-1250' });
    if (knownLabels.size < MAX_KNOWN_LABELS) knownLabels.set(label, known);
  }
  return known;
}

function charsetParam(contentType: string): string | undefined {
  return /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
}
