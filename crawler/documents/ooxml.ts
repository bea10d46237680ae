/**
 * What DOCX, PPTX and XLSX share, the Open Packaging Conventions: relationships (which part is the
 * main one, where a slide or a sheet lives, where a hyperlink points), the core properties (title,
 * author, …) and the extended ones (the page count).
 */
import { posix } from 'node:path';
import type { DocumentMeta } from './page.ts';
import { readFields, walkXml } from './xml.ts';
import { DocumentRefusal } from './types.ts';
import type { ZipArchive } from './zip.ts';

export type Relationship = {
  readonly type: string;
  /** A part's name in the zip (no leading slash), or, for an external one, the target as written. */
  readonly target: string;
  readonly external: boolean;
};

/** The relationships of `part` (`''` for the package's own), by id. */
export function relationships(zip: ZipArchive, part: string): Map<string, Relationship> {
  const dir = posix.dirname(part);
  const relsPath = part ? `${dir === '.' ? '' : `${dir}/`}_rels/${posix.basename(part)}.rels` : '_rels/.rels';
  const rels = new Map<string, Relationship>();
  const xml = zip.text(relsPath);
  if (!xml) return rels;
  walkXml(xml, {
    open(name, a) {
      if (name !== 'rel:Relationship' && name !== 'Relationship') return;
      const { Id: id, Type: type = '', Target: target = '' } = a;
      if (!id || rels.has(id)) return;
      const external = a.TargetMode === 'External';
      rels.set(id, { type, target: external ? target : partName(part ? dir : '', target), external });
    },
  });
  return rels;
}

/** The first relationship whose type ends with `/suffix` (transitional and strict types share their last segment). */
export function relationshipOfType(rels: ReadonlyMap<string, Relationship>, suffix: string): Relationship | undefined {
  for (const r of rels.values()) if (r.type.endsWith(`/${suffix}`)) return r;
  return undefined;
}

/** The package's main part (word/document.xml, ppt/presentation.xml, xl/workbook.xml). */
export function mainPart(zip: ZipArchive, usual: string): string {
  const main = relationshipOfType(relationships(zip, ''), 'officeDocument');
  const name = main && !main.external ? main.target : usual;
  if (!zip.has(name)) throw new DocumentRefusal('damaged', `the package has no main part (${name})`);
  return name;
}

const CORE_FIELDS = new Set(['dc:title', 'dc:creator', 'dc:subject', 'dc:description', 'cp:keywords', 'dcterms:created', 'dcterms:modified', 'dc:language']);

/** docProps/core.xml (wherever the package's relationship puts it) and the page count of docProps/app.xml. */
export function packageMeta(zip: ZipArchive): DocumentMeta {
  const rels = relationships(zip, '');
  const corePart = relationshipOfType(rels, 'core-properties')?.target ?? 'docProps/core.xml';
  const appPart = relationshipOfType(rels, 'extended-properties')?.target ?? 'docProps/app.xml';
  const core = readFields(zip.text(corePart) ?? '<x/>', CORE_FIELDS);
  const app = readFields(zip.text(appPart) ?? '<x/>', new Set(['ep:Pages', 'Pages']));
  const pages = Number(app.get('ep:Pages') ?? app.get('Pages'));
  return {
    title: core.get('dc:title'),
    author: core.get('dc:creator'),
    subject: core.get('dc:subject') ?? core.get('dc:description'),
    keywords: core.get('cp:keywords'),
    created: core.get('dcterms:created'),
    modified: core.get('dcterms:modified'),
    lang: core.get('dc:language'),
    ...(Number.isSafeInteger(pages) && pages > 0 ? { pages } : {}),
  };
}

/** A relationship's target as a part name: relative to the source part's folder, or absolute. */
function partName(dir: string, target: string): string {
  let t = target;
  try {
    t = decodeURIComponent(target);
  } catch {
    /* a stray % is taken as written */
  }
  const joined = t.startsWith('/') ? t : posix.join(dir, t);
  return posix.normalize(joined).replace(/^\/+/, '');
}
