/**
 * Bytes → text. The encoding comes from, in order: a byte-order mark, the HTTP Content-Type charset,
 * a `<meta charset>` / `<meta http-equiv>` in the first 1024 bytes, else UTF-8 (after the WHATWG
 * encoding standard's sniffing order). Node's TextDecoder (full ICU) knows the WHATWG labels, and maps
 * latin1/iso-8859-1 to windows-1252 as browsers do.
 */

export function decodeBody(body: Buffer, contentType: string): { text: string; encoding: string } {
  const encoding = bomEncoding(body) ?? validLabel(charsetParam(contentType)) ?? validLabel(sniffMeta(body)) ?? 'utf-8';
  if (encoding === 'windows-1252') return { text: decodeWindows1252(body), encoding };
  // fatal: false — invalid sequences become U+FFFD instead of losing the page.
  return { text: new TextDecoder(encoding, { fatal: false }).decode(body), encoding };
}

/**
 * WHATWG's windows-1252 index for bytes 0x80–0x9F (the rest is Latin-1). Node 20's TextDecoder
 * decodes this label as ISO-8859-1 and turns “smart quotes” and € into C1 control characters.
 */
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178,
];

function decodeWindows1252(b: Buffer): string {
  let out = '';
  const CHUNK = 8192;
  for (let i = 0; i < b.length; i += CHUNK) {
    const codes = Array.from(b.subarray(i, i + CHUNK), (x) => (x >= 0x80 && x <= 0x9f ? CP1252_HIGH[x - 0x80]! : x));
    out += String.fromCharCode(...codes);
  }
  return out;
}

function bomEncoding(b: Buffer): string | undefined {
  if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return 'utf-8';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  return undefined;
}

function charsetParam(contentType: string): string | undefined {
  return /charset\s*=\s*["']?([\w.:-]+)/i.exec(contentType)?.[1];
}

function sniffMeta(b: Buffer): string | undefined {
  const head = b.subarray(0, 1024).toString('latin1');
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

function validLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return undefined;
  }
}
